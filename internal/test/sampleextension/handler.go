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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

// MaxRequestBytes bounds the body of a hook call; larger bodies get HTTP 413.
const MaxRequestBytes = 1 << 20

var _ http.Handler = &Server{}

// ServeHTTP answers the hook calls: Discovery at DiscoveryPath, and every
// advertised handler at HandlerPath. Only POST is allowed (others get 405),
// unknown paths get 404, and bodies that are not JSON of the hook's request
// type get 400. The answer is JSON of the hook's response type with
// apiVersion, kind and status Success, unless a fault applies (see Faults):
// Discovery lists the advertised handlers, DiscoverVariables the handler's
// variables, and every other hook nothing else.
//
// Calls that get no answer (DropRate, and waits cut short because the
// request context ended) have their connection hijacked and closed. Where
// that is impossible (HTTP/2, or a ResponseWriter that is not an
// http.Hijacker) the handler panics with http.ErrAbortHandler, which net/http
// turns into a reset stream or closed connection without logging it;
// callers that invoke ServeHTTP directly see that panic.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, ok := s.lookup(r.URL.Path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, fmt.Sprintf("method %s not allowed; hooks are called with POST", r.Method), http.StatusMethodNotAllowed)
		return
	}
	calls := s.count(rt.key())

	req, status, err := decodeRequest(w, r, rt)
	if err != nil {
		http.Error(w, err.Error(), status)
		return
	}
	if withSettings, ok := req.(interface{ GetSettings() map[string]string }); ok {
		s.recordSettings(rt.key(), withSettings.GetSettings())
	}

	f := s.faultsOf(rt)
	// A call whose context ends while it waits gets no answer at all: either
	// the client is gone, or the server is shutting down, and then an empty
	// 200 would pass for a success.
	if !wait(r.Context(), f.Delay) {
		drop(w)
		return
	}
	switch s.pick(f) {
	case faultDrop:
		drop(w)
	case faultHang:
		if !wait(r.Context(), MaxHang) {
			drop(w)
			return
		}
		http.Error(w, fmt.Sprintf("injected timeout: no answer for %s", MaxHang), http.StatusGatewayTimeout)
	case faultError:
		http.Error(w, "injected error", http.StatusInternalServerError)
	case faultFailure:
		s.respond(w, rt, answered{status: runtimehooksv1.ResponseStatusFailure, message: fmt.Sprintf("injected failure of %s", rt.key())})
	case faultNone:
		if f.RawBody != nil {
			writeRaw(w, f.RawBody, f.RawBodyRepeat)
			return
		}
		s.respond(w, rt, answered{status: runtimehooksv1.ResponseStatusSuccess, request: req, calls: calls})
	}
}

// decodeRequest reads the bounded body into the hook's request type. It
// returns the HTTP status to answer with if that fails.
func decodeRequest(w http.ResponseWriter, r *http.Request, rt route) (any, int, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	if err != nil {
		if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
			return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("request body of %s exceeds %d bytes", rt.key(), tooLarge.Limit)
		}
		return nil, http.StatusBadRequest, fmt.Errorf("read request of %s: %w", rt.key(), err)
	}
	req, err := hookCatalog().NewRequest(rt.gvh)
	if err != nil {
		return nil, http.StatusInternalServerError, err
	}
	if err := json.Unmarshal(body, req); err != nil {
		return nil, http.StatusBadRequest, fmt.Errorf("decode request of %s: %w", rt.key(), err)
	}
	return req, 0, nil
}

// answered is what a response says: its status and message, and for a
// success the request it answers and the route's call count with it.
type answered struct {
	status  runtimehooksv1.ResponseStatus
	message string
	request any
	calls   int64
}

// respond writes the hook's response.
func (s *Server) respond(w http.ResponseWriter, rt route, a answered) {
	body, err := s.response(rt, a)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (s *Server) response(rt route, a answered) ([]byte, error) {
	obj, err := hookCatalog().NewResponse(rt.gvh)
	if err != nil {
		return nil, err
	}
	gvk, err := hookCatalog().Response(rt.gvh)
	if err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	resp, ok := obj.(runtimehooksv1.ResponseObject)
	if !ok {
		return nil, fmt.Errorf("response %s of %s has no status", gvk.Kind, rt.key())
	}
	resp.SetStatus(a.status)
	resp.SetMessage(a.message)
	if a.status == runtimehooksv1.ResponseStatusSuccess {
		switch resp := resp.(type) {
		case *runtimehooksv1.DiscoveryResponse:
			resp.Handlers = s.advertised()
		case *runtimehooksv1.DiscoverVariablesResponse:
			resp.Variables = s.variablesOf(rt.handler)
		}
		if err := s.answer(rt, a.request, resp, a.calls); err != nil {
			return nil, err
		}
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %s of %s: %w", gvk.Kind, rt.key(), err)
	}
	return body, nil
}

// wait waits for d, and reports false if ctx ended first.
func wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// drop closes the connection without an answer.
func drop(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	// HTTP/2 cannot hand the connection over; aborting resets the stream, and
	// net/http neither logs this panic nor lets it escape the connection.
	panic(http.ErrAbortHandler)
}

// writeRaw answers with body, repeat times.
func writeRaw(w http.ResponseWriter, body []byte, repeat int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	for range max(repeat, 1) {
		if _, err := w.Write(body); err != nil {
			return
		}
	}
}
