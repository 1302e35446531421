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
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

// ServeOptions configure Serve.
type ServeOptions struct {
	// TLSConfig, when set, makes Serve speak HTTPS with it; otherwise it
	// speaks plain HTTP.
	TLSConfig *tls.Config

	// ErrorLog receives the errors of net/http itself, such as failed TLS
	// handshakes; nil discards them.
	ErrorLog *log.Logger

	// ShutdownTimeout bounds how long Serve waits for calls in flight once
	// its context is done; 0 means 5 seconds.
	ShutdownTimeout time.Duration
}

// Serve serves h on l until ctx is done, then shuts down; it returns nil
// after a clean shutdown, and an error if serving failed or calls were still
// running when ShutdownTimeout ran out. It speaks HTTP/1.1 only, as controller-runtime's webhook server does by
// default, so that a Server can drop connections by hijacking them.
//
// Request contexts derive from ctx, so calls that wait (Delay, TimeoutRate)
// end as soon as ctx is done; the others get ShutdownTimeout to finish
// before their connections are closed.
func Serve(ctx context.Context, l net.Listener, h http.Handler, opts ServeOptions) error {
	errorLog := opts.ErrorLog
	if errorLog == nil {
		errorLog = log.New(io.Discard, "", 0)
	}
	timeout := opts.ShutdownTimeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	srv := &http.Server{
		Handler:           h,
		TLSConfig:         opts.TLSConfig,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          errorLog,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		Protocols:         new(http.Protocols),
	}
	srv.Protocols.SetHTTP1(true)

	served := make(chan error, 1)
	go func() {
		if opts.TLSConfig != nil {
			served <- srv.ServeTLS(l, "", "")
			return
		}
		served <- srv.Serve(l)
	}()

	select {
	case err := <-served:
		return fmt.Errorf("serve on %s: %w", l.Addr(), err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if err != nil {
		_ = srv.Close()
		err = fmt.Errorf("shut down %s: %w; closed the remaining connections", l.Addr(), err)
	}
	if serveErr := <-served; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, fmt.Errorf("serve on %s: %w", l.Addr(), serveErr))
	}
	return err
}

// StartTLS serves h on a free port of 127.0.0.1 over HTTPS, with a fresh
// certificate for 127.0.0.1 and localhost signed by a fresh CA. It returns
// the base URL (https://127.0.0.1:PORT), the CA certificate in PEM for
// clients to trust, and stop, which shuts the server down and returns once
// it has; stop may be called more than once.
func StartTLS(h http.Handler) (url string, caPEM []byte, stop func(), err error) {
	caPEM, certPEM, keyPEM, err := SelfSignedCertificate([]string{"127.0.0.1", "localhost"}, 24*time.Hour)
	if err != nil {
		return "", nil, nil, err
	}
	tlsConfig, err := ServingTLSConfig(certPEM, keyPEM)
	if err != nil {
		return "", nil, nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		// A test server has no one to report to; a failure shows as failed calls.
		_ = Serve(ctx, l, h, ServeOptions{TLSConfig: tlsConfig})
	}()
	stop = sync.OnceFunc(func() {
		cancel()
		<-done
	})
	return "https://" + l.Addr().String(), caPEM, stop, nil
}

// Running is a Server served over HTTPS on a loopback port.
type Running struct {
	// Server is the running server, to steer and to read call counts from.
	Server *Server
	// URL is https://127.0.0.1:PORT, for spec.clientConfig.url.
	URL string
	// CA is the PEM CA that signed the serving certificate, for
	// spec.clientConfig.caBundle.
	CA []byte
}
