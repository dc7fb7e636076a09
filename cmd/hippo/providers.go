package main

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/dsn"
	"github.com/hippo-mem/hippo/llm"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/local/minilm"
	"github.com/hippo-mem/hippo/metrics"
	"github.com/hippo-mem/hippo/openai"
	"github.com/spf13/pflag"
)

// providers holds the embedding and LLM settings. Each comes from its flag,
// else its HIPPO_* variable; with neither, the offline defaults are used.
type providers struct {
	offline                        string // --embedder: "glove", "minilm" or "" (the default)
	embedURL, embedKey, embedModel string
	embedDims                      int
	llmURL, llmKey, llmModel       string
	llmTimeout                     time.Duration
	llmMaxTokens                   int
	discardText                    bool
}

// addProviderFlags registers the provider flags on fs.
func (p *providers) addProviderFlags(fs *pflag.FlagSet) {
	fs.StringVar(&p.offline, "embedder", os.Getenv("HIPPO_EMBEDDER"), "offline embedder: minilm (the default for new databases) or glove (env HIPPO_EMBEDDER)")
	fs.StringVar(&p.embedURL, "embed-url", os.Getenv("HIPPO_EMBED_URL"), "OpenAI-compatible embeddings base URL (env HIPPO_EMBED_URL)")
	fs.StringVar(&p.embedKey, "embed-key", "", "embeddings API key (env HIPPO_EMBED_KEY; prefer the variable: flags show in ps)")
	fs.StringVar(&p.embedModel, "embed-model", os.Getenv("HIPPO_EMBED_MODEL"), "embedding model (env HIPPO_EMBED_MODEL)")
	dims, _ := strconv.Atoi(os.Getenv("HIPPO_EMBED_DIMENSIONS"))
	fs.IntVar(&p.embedDims, "embed-dimensions", dims, "embedding dimensions to request (env HIPPO_EMBED_DIMENSIONS)")
	fs.StringVar(&p.llmURL, "llm-url", os.Getenv("HIPPO_LLM_URL"), "OpenAI-compatible chat base URL (env HIPPO_LLM_URL)")
	fs.StringVar(&p.llmKey, "llm-key", "", "LLM API key (env HIPPO_LLM_KEY)")
	fs.StringVar(&p.llmModel, "llm-model", os.Getenv("HIPPO_LLM_MODEL"), "LLM model (env HIPPO_LLM_MODEL)")
	fs.DurationVar(&p.llmTimeout, "llm-timeout", 0, "time the LLM has to answer, such as 30s or 2m, before remember falls back to the offline extractor; not retried (env HIPPO_LLM_TIMEOUT, default 30s)")
	fs.IntVar(&p.llmMaxTokens, "llm-max-tokens", 0, "longest LLM reply, in tokens (env HIPPO_LLM_MAX_TOKENS, default 1024)")
	fs.BoolVar(&p.discardText, "discard-text", false, "remember keeps the facts alone, not the text they came from (env HIPPO_DISCARD_TEXT=1)")
}

// discardText is --discard-text, else HIPPO_DISCARD_TEXT.
func (a *app) discardText() (bool, error) {
	return a.boolSetting("discard-text", "HIPPO_DISCARD_TEXT", a.providers.discardText)
}

// boolSetting is the boolean flag name, given as value, when it was set,
// else the variable env when set, else value (the flag's default).
func (a *app) boolSetting(name, env string, value bool) (bool, error) {
	v := strings.TrimSpace(os.Getenv(env))
	if v == "" || a.root.PersistentFlags().Changed(name) {
		return value, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, usageErrorf("%s must be 1, 0, true or false, got %q", env, v)
	}
	return b, nil
}

func (p *providers) keys() (embed, chat string) {
	embed, chat = p.embedKey, p.llmKey
	if embed == "" {
		embed = os.Getenv("HIPPO_EMBED_KEY")
	}
	if chat == "" {
		chat = os.Getenv("HIPPO_LLM_KEY")
	}
	return embed, chat
}

// embedderConfigured reports whether an API embedder was asked for.
func (p *providers) embedderConfigured() bool {
	key, _ := p.keys()
	return p.embedURL != "" || p.embedModel != "" || key != "" || p.embedDims != 0
}

func (p *providers) llmConfigured() bool {
	_, key := p.keys()
	return p.llmURL != "" || p.llmModel != "" || key != ""
}

// Offline embedder names, for --embedder and HIPPO_EMBEDDER.
const (
	offlineMiniLM = "minilm"
	offlineGloVe  = "glove"
)

// embedder is the configured embedder: an OpenAI-compatible endpoint when
// any HIPPO_EMBED_* setting is given, the offline embedder --embedder
// names, else the offline default, MiniLM. Commands that open an existing
// database use embedderFor instead, which keeps a GloVe database on GloVe.
func (a *app) embedder() (hippo.Embedder, error) {
	switch a.providers.offline {
	case "":
	case offlineMiniLM, offlineGloVe:
		if a.providers.embedderConfigured() && a.apiEmbedFlagOverridesEnv() {
			a.providers.offline = "" // flags win over HIPPO_EMBEDDER
		} else if a.providers.embedderConfigured() {
			return nil, usageErrorf("--embedder %s picks an offline embedder; it cannot be combined with --embed-url, --embed-model, --embed-key or --embed-dimensions (or their HIPPO_EMBED_* variables)", a.providers.offline)
		}
	default:
		return nil, usageErrorf("--embedder must be minilm or glove, got %q", a.providers.offline)
	}
	if !a.providers.embedderConfigured() {
		if a.providers.offline == offlineGloVe {
			return local.NewEmbedder(), nil
		}
		return minilm.NewEmbedder(), nil
	}
	if a.providers.embedDims < 0 {
		return nil, usageErrorf("--embed-dimensions must not be negative")
	}
	key, _ := a.providers.keys()
	return openai.NewEmbedder(a.observed(metrics.Embedder, openai.Config{BaseURL: a.providers.embedURL, APIKey: key,
		Model: a.providers.embedModel, Dimensions: a.providers.embedDims}))
}

// apiEmbedFlagOverridesEnv reports whether an API embedder was asked for
// on the command line while the offline one came from HIPPO_EMBEDDER: flags
// win over variables.
func (a *app) apiEmbedFlagOverridesEnv() bool {
	f := a.root.PersistentFlags()
	if f.Changed("embedder") {
		return false
	}
	for _, name := range []string{"embed-url", "embed-key", "embed-model", "embed-dimensions"} {
		if f.Changed(name) {
			return true
		}
	}
	return false
}

// embedderFor is embedder for a database already open. When nothing names
// an embedder and db is locked to the GloVe model, the offline default of
// earlier versions, it returns GloVe: existing databases keep working with
// no setting and no error, and `hippo reembed` moves them to MiniLM.
func (a *app) embedderFor(ctx context.Context, db database) (hippo.Embedder, error) {
	e, err := a.embedder()
	if err != nil || a.providers.offline != "" || a.providers.embedderConfigured() {
		return e, err
	}
	lock, err := db.EmbeddingModel(ctx)
	if err != nil {
		return nil, err
	}
	if lock != nil && lock.Model == local.Model {
		return local.NewEmbedder(), nil
	}
	return e, nil
}

// factModels are the extractor and classifier: an LLM when any HIPPO_LLM_*
// setting is given, with the offline extractor as its fallback, else the
// offline rule-based ones and no fallback.
func (a *app) factModels() (extractor hippo.Extractor, classifier hippo.Classifier, fallback hippo.Extractor, err error) {
	if !a.providers.llmConfigured() {
		return local.NewExtractor(), local.NewClassifier(), nil, nil
	}
	timeout, maxTokens, err := a.llmLimits()
	if err != nil {
		return nil, nil, nil, err
	}
	_, key := a.providers.keys()
	client, err := openai.NewLLM(a.observed(metrics.LLM, openai.Config{BaseURL: a.providers.llmURL, APIKey: key, Model: a.providers.llmModel,
		Timeout: timeout, MaxTokens: maxTokens}))
	if err != nil {
		return nil, nil, nil, err
	}
	var l hippo.LLM = client
	if a.metrics != nil {
		l = a.metrics.WrapLLM(client)
	}
	return llm.NewExtractor(l), llm.NewClassifier(l), local.NewExtractor(), nil
}

// llmLimits are --llm-timeout and --llm-max-tokens, else their HIPPO_LLM_*
// variables; 0 leaves openai's defaults. A timeout is a duration ("45s")
// or a number of seconds.
func (a *app) llmLimits() (timeout time.Duration, maxTokens int, err error) {
	f := a.root.PersistentFlags()
	timeout, maxTokens = a.providers.llmTimeout, a.providers.llmMaxTokens
	if v := strings.TrimSpace(os.Getenv("HIPPO_LLM_TIMEOUT")); v != "" && !f.Changed("llm-timeout") {
		if timeout, err = time.ParseDuration(v); err != nil {
			s, serr := strconv.ParseFloat(v, 64)
			if serr != nil || math.IsNaN(s) || s > float64(24*time.Hour/time.Second) {
				return 0, 0, usageErrorf("HIPPO_LLM_TIMEOUT must be a duration such as 30s or 2m, got %q", v)
			}
			timeout = time.Duration(s * float64(time.Second))
		}
	}
	if v := strings.TrimSpace(os.Getenv("HIPPO_LLM_MAX_TOKENS")); v != "" && !f.Changed("llm-max-tokens") {
		if maxTokens, err = strconv.Atoi(v); err != nil {
			return 0, 0, usageErrorf("HIPPO_LLM_MAX_TOKENS must be a whole number of tokens, got %q", v)
		}
	}
	if timeout < 0 {
		return 0, 0, usageErrorf("--llm-timeout must not be negative, got %v", timeout)
	}
	if maxTokens < 0 {
		return 0, 0, usageErrorf("--llm-max-tokens must not be negative, got %d", maxTokens)
	}
	return timeout, maxTokens, nil
}

// observed is cfg with its retries and token usage counted in a.metrics,
// when there is one.
func (a *app) observed(provider string, cfg openai.Config) openai.Config {
	if a.metrics == nil {
		return cfg
	}
	m := a.metrics
	cfg.OnRetry = m.Retry(provider)
	cfg.OnUsage = func(u openai.Usage) { m.Tokens(provider, u.PromptTokens, u.CompletionTokens) }
	return cfg
}

// describeProviders says which embedder and LLM are in use, never a key
// nor a credential in their URLs.
func (a *app) describeProviders(e hippo.Embedder) (embed, chat string) {
	embed = e.Model() + " (offline default)"
	if a.providers.embedderConfigured() {
		embed = e.Model() + " at " + dsn.Redact(orDefault(a.providers.embedURL, openai.DefaultEmbeddingBaseURL))
	}
	chat = "rule-based extractor (offline default)"
	if a.providers.llmConfigured() {
		chat = orDefault(a.providers.llmModel, openai.DefaultChatModel) + " at " + dsn.Redact(orDefault(a.providers.llmURL, openai.DefaultChatBaseURL))
	}
	return embed, chat
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
