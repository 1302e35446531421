/*
Copyright 2026 The runtime-sdk-controller Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package sampleextension

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Faults describes how a Server misbehaves. The zero value is a well-behaved
// extension.
//
// Every call first waits for Delay, then draws one random number that picks
// at most one of the rated faults, in the order DropRate, TimeoutRate,
// ErrorRate, FailureRate: a rate is the share of calls that get that fault,
// so a rate of 0 never and a rate of 1 always applies (if the rates add up
// to more than 1, the later ones get what is left). Calls that draw no fault
// get RawBody when it is set, and the normal answer otherwise.
//
// In JSON (as the Admin endpoint takes it) Faults is an object with the keys
// delay (a Go duration string such as "250ms", or a number of nanoseconds),
// errorRate, timeoutRate, dropRate, failureRate (numbers from 0 to 1),
// rawBody (a string whose bytes are the body; absent or null means unset)
// and rawBodyRepeat (an integer).
type Faults struct {
	// Delay is added before answering. A request whose context ends first
	// (the client gave up) gets no answer.
	Delay time.Duration

	// ErrorRate is the share of calls answered with HTTP 500 and a plain
	// text body.
	ErrorRate float64

	// TimeoutRate is the share of calls that get no answer until the client
	// gives up (the request context ends) or MaxHang has passed, whichever
	// comes first; after MaxHang the call is answered with HTTP 504.
	TimeoutRate float64

	// DropRate is the share of calls whose connection is closed without an
	// answer.
	DropRate float64

	// FailureRate is the share of calls answered with HTTP 200, the right
	// response kind, status Failure and a message.
	FailureRate float64

	// RawBody, when non-nil, is the body of every call that draws no other
	// fault: HTTP 200, content type application/json, and exactly these
	// bytes (which need not be JSON, nor the right kind).
	RawBody []byte

	// RawBodyRepeat writes RawBody this many times, which makes oversized
	// bodies cheap; values below 1 mean once.
	RawBodyRepeat int
}

// MaxHang caps how long a call chosen by TimeoutRate hangs, so that a client
// without a timeout cannot hold a goroutine forever.
const MaxHang = 2 * time.Minute

// Validate reports whether f is a sensible configuration: rates between 0
// and 1, and no negative delay or repeat count.
func (f Faults) Validate() error {
	var errs []error
	for _, r := range []struct {
		name string
		v    float64
	}{
		{"errorRate", f.ErrorRate},
		{"timeoutRate", f.TimeoutRate},
		{"dropRate", f.DropRate},
		{"failureRate", f.FailureRate},
	} {
		if math.IsNaN(r.v) || r.v < 0 || r.v > 1 {
			errs = append(errs, fmt.Errorf("%s %v is not between 0 and 1", r.name, r.v))
		}
	}
	if f.Delay < 0 {
		errs = append(errs, fmt.Errorf("delay %s is negative", f.Delay))
	}
	if f.RawBodyRepeat < 0 {
		errs = append(errs, fmt.Errorf("rawBodyRepeat %d is negative", f.RawBodyRepeat))
	}
	return errors.Join(errs...)
}

// clone returns a copy of f that shares no memory with it.
func (f Faults) clone() Faults {
	if f.RawBody != nil {
		f.RawBody = bytes.Clone(f.RawBody)
	}
	return f
}

// rated reports whether any fault depends on a random draw.
func (f Faults) rated() bool {
	return f.DropRate > 0 || f.TimeoutRate > 0 || f.ErrorRate > 0 || f.FailureRate > 0
}

// fault is what a single call gets.
type fault int

const (
	faultNone fault = iota
	faultDrop
	faultHang
	faultError
	faultFailure
)

// pick maps a draw u from [0, 1) to a fault. Comparing u < rate makes a rate
// of 0 never and a rate of 1 always apply.
func (f Faults) pick(u float64) fault {
	limit := f.DropRate
	if u < limit {
		return faultDrop
	}
	limit += f.TimeoutRate
	if u < limit {
		return faultHang
	}
	limit += f.ErrorRate
	if u < limit {
		return faultError
	}
	limit += f.FailureRate
	if u < limit {
		return faultFailure
	}
	return faultNone
}

// faultsJSON is the wire form of Faults.
type faultsJSON struct {
	Delay         jsonDuration `json:"delay,omitempty"`
	ErrorRate     float64      `json:"errorRate,omitempty"`
	TimeoutRate   float64      `json:"timeoutRate,omitempty"`
	DropRate      float64      `json:"dropRate,omitempty"`
	FailureRate   float64      `json:"failureRate,omitempty"`
	RawBody       *string      `json:"rawBody,omitempty"`
	RawBodyRepeat int          `json:"rawBodyRepeat,omitempty"`
}

// MarshalJSON writes f in the form described on Faults, with the delay as a
// duration string.
func (f Faults) MarshalJSON() ([]byte, error) {
	out := faultsJSON{
		Delay:         jsonDuration(f.Delay),
		ErrorRate:     f.ErrorRate,
		TimeoutRate:   f.TimeoutRate,
		DropRate:      f.DropRate,
		FailureRate:   f.FailureRate,
		RawBodyRepeat: f.RawBodyRepeat,
	}
	if f.RawBody != nil {
		body := string(f.RawBody)
		out.RawBody = &body
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads f in the form described on Faults. Unknown keys are
// an error, so that a misspelt knob does not silently do nothing.
func (f *Faults) UnmarshalJSON(data []byte) error {
	var in faultsJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return fmt.Errorf("decode faults: %w", err)
	}
	*f = Faults{
		Delay:         time.Duration(in.Delay),
		ErrorRate:     in.ErrorRate,
		TimeoutRate:   in.TimeoutRate,
		DropRate:      in.DropRate,
		FailureRate:   in.FailureRate,
		RawBodyRepeat: in.RawBodyRepeat,
	}
	if in.RawBody != nil {
		f.RawBody = []byte(*in.RawBody)
	}
	return nil
}

// jsonDuration is a time.Duration that reads a Go duration string or a
// number of nanoseconds, and writes a duration string.
type jsonDuration time.Duration

func (d jsonDuration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

func (d *jsonDuration) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("delay: %w", err)
		}
		*d = jsonDuration(v)
		return nil
	}
	if string(data) == "null" {
		*d = 0
		return nil
	}
	v, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		return fmt.Errorf("delay %s is neither a duration string nor an integer number of nanoseconds", data)
	}
	*d = jsonDuration(v)
	return nil
}
