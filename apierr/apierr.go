// Package apierr defines the structured errors every nvbridge tool returns:
// a stable code, a message saying what went wrong and a remediation saying
// what the caller can do about it.
package apierr

import (
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
	OperationFailed    Code = "OPERATION_FAILED"
	PartialResult      Code = "PARTIAL_RESULT"
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
