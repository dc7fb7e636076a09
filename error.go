package hippo

import (
	"errors"
	"fmt"
)

// Error codes shared by every layer. They map onto tool errors, CLI exit
// codes and HTTP statuses.
const (
	EINVALID  = "invalid"
	ENOTFOUND = "not_found"
	ECONFLICT = "conflict"
	EINTERNAL = "internal"
	// EUNAVAILABLE is a store that cannot serve the call now, through no
	// fault of the input: its disk is full, or its file is damaged. The
	// message says what to do.
	EUNAVAILABLE = "unavailable"
)

// Error is an error with a code and a message fit to show to a user or an
// agent. Field names the offending input, when there is one.
type Error struct {
	Code    string
	Field   string
	Message string
}

func (e *Error) Error() string {
	return e.Message
}

// Errorf returns an *Error with code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalidf returns an EINVALID *Error about field.
func Invalidf(field, format string, args ...any) *Error {
	return &Error{Code: EINVALID, Field: field, Message: field + ": " + fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other non-nil error and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the message of the first *Error in err's chain, or a
// generic message for internal errors.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error: " + err.Error()
}

// KeptError is a remember_facts call that failed after its text was kept
// as a memory: Err says what failed (extraction, the comparison with known
// facts, their write), ID is the kept text's memory, so that nothing the
// caller said is lost and it can be told so.
type KeptError struct {
	Err error
	ID  string
}

func (e *KeptError) Error() string {
	return fmt.Sprintf("%v (the text was kept as memory %s)", e.Err, e.ID)
}

func (e *KeptError) Unwrap() error { return e.Err }
