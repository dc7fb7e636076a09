package engine

import "testing"

func TestStatesChange(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"update: budget is more like 8k now", true},
		{"the gig got moved to the 13th", true},
		{"Change of plan, the party is on Saturday", true},
		{"big change - i've taken a job as a rep", true},
		{"I no longer eat meat", true},
		{"rent went up to 1450", true},
		{"cost is 420 million, not 350", true},
		{"actually scrap that, we're going to Fiji instead", true},
		{"He is a chef now", true},
		{"i quit the coffee shop lol", true},
		// Plans, questions and phrases of their own are not news.
		{"Decided to move the staging environment to Hetzner", false},
		{"Any changes to what she takes?", false},
		{"I'm busy right now", false},
		{"that's enough for now", false},
		{"The christening is on 15 December in Cork", false},
		{"not sure about that", false},
		{"Now, let's look at the options.", false},
		{"Sure. Now I want to add a room", false},
		{"3.5 is fine, it's 4 now", true},
		{"Oh actually, it's on Friday", true},
		{"I actually redeemed a $5 coupon last Sunday", false},
		{"I've had my cat for about 9 months now", false},
		{"I've made it at home 10 times now", false},
		{"I've been making my own sauce from scratch", false},
		{"I ran 5k and raised $250 for a local shelter", false},
		{"the van budget got bumped up to 3.1 million", true},
		{"Van budget update: prices have gone up", true},
		{"I need to update my address with my insurer", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := StatesChange(tt.text); got != tt.want {
			t.Errorf("StatesChange(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
