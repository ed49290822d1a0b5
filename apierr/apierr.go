// Package apierr defines the structured errors every nvbridge tool returns:
// a stable code, a message saying what went wrong and a remediation saying
// what the caller can do about it.
package apierr

import (
	"context"
	"errors"
	"fmt"
)

// Code is a stable, machine-readable error class.
type Code string

const (
	InvalidParameter   Code = "INVALID_PARAMETER"
	ResourceNotFound   Code = "RESOURCE_NOT_FOUND"
	Ambiguous          Code = "AMBIGUOUS"
	PreconditionFailed Code = "PRECONDITION_FAILED"
	Conflict           Code = "CONFLICT"
	Unsupported        Code = "UNSUPPORTED"
	Timeout            Code = "TIMEOUT"
	// Cancelled: the caller cancelled the request (MCP
	// notifications/cancelled, a closed connection, SIGINT). Distinct from
	// TIMEOUT, a bound that was hit. Over MCP a cancelled request is not
	// answered at all; the code reaches callers that still read a result
	// (the in-process client, logs).
	Cancelled       Code = "CANCELLED"
	OperationFailed Code = "OPERATION_FAILED"
	PartialResult   Code = "PARTIAL_RESULT"
	// Rejected: the user refused the call (an approval rejected, a
	// before_tool hook in their Neovim said no); the message carries
	// their note.
	Rejected Code = "REJECTED"
)

// Error is a failure a tool reports to its caller.
type Error struct {
	Code        Code   `json:"code"`
	Message     string `json:"message"`
	Remediation string `json:"remediation,omitempty"`
	// Details carries structured context, e.g. the candidates of an
	// AMBIGUOUS error.
	Details any `json:"details,omitempty"`
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// New returns an error with a code, a message and a remediation.
func New(code Code, message, remediation string) *Error {
	return &Error{Code: code, Message: message, Remediation: remediation}
}

// Errorf is New with a formatted message.
func Errorf(code Code, remediation, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Remediation: remediation}
}

// WithDetails returns a copy of e carrying details.
func (e *Error) WithDetails(details any) *Error {
	c := *e
	c.Details = details
	return &c
}

// As extracts the *Error in err's chain; any other error becomes
// OPERATION_FAILED so callers always have a code to show.
func As(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: OperationFailed, Message: err.Error(), Remediation: "retry; if it persists, check the nvbridge log"}
}

// CodeOf returns err's code ("" for nil).
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	return As(err).Code
}

// FromContext is the error for an ended ctx: TIMEOUT (with what and
// remediation) when its deadline passed, CANCELLED when the caller
// cancelled it, nil while it is live.
func FromContext(ctx context.Context, what, remediation string) *Error {
	switch {
	case ctx.Err() == nil:
		return nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return New(Timeout, what+" timed out", remediation)
	default:
		return New(Cancelled, what+" was cancelled", "nothing was changed; retry if the cancellation was not intended")
	}
}
