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

package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

const name = "sample-extension"

// certificateLifetime of a generated certificate: long enough for any load
// run, and the CA is written next to the run, not installed anywhere.
const certificateLifetime = 365 * 24 * time.Hour

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the command line of the binary.
type options struct {
	address       string
	certFile      string
	keyFile       string
	hosts         string
	caOut         string
	variablesFile string
	adminAddress  string
	delay         time.Duration
	errorRate     float64
	seed          uint64
}

// usageError is a bad command line, as opposed to a failure to run.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func parseFlags(args []string, stdout io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag package prints usage on every error; errors here are one line,
	// and usage is printed only when asked for.
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.address, "address", "127.0.0.1:9443", "Address the HTTPS hook endpoints listen on; port 0 picks a free port.")
	fs.StringVar(&o.certFile, "cert-file", "", "PEM serving certificate; with --key-file. Without both, a certificate for --hosts is generated.")
	fs.StringVar(&o.keyFile, "key-file", "", "PEM private key of --cert-file.")
	fs.StringVar(&o.hosts, "hosts", "localhost,127.0.0.1", "Comma-separated DNS names and IPs of a generated certificate.")
	fs.StringVar(&o.caOut, "ca-out", "sample-extension-ca.crt", "Where to write the CA of a generated certificate, for an ExtensionConfig's spec.clientConfig.caBundle.")
	fs.StringVar(&o.variablesFile, "variables-file", "", "YAML or JSON list of ClusterClassVariables the discover-variables handler returns.")
	fs.StringVar(&o.adminAddress, "admin-address", "127.0.0.1:9444", "Address of the plain HTTP admin endpoint (call counts, faults); empty disables it. It has no authentication.")
	fs.DurationVar(&o.delay, "delay", 0, "Delay added to every call.")
	fs.Float64Var(&o.errorRate, "error-rate", 0, "Share of calls (0 to 1) answered with HTTP 500.")
	fs.Uint64Var(&o.seed, "seed", 0, "Seed of the random draws that pick which calls fail.")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "Usage: %s [flags]\n\nFlags:\n", name)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
		}
		return nil, usageError{err}
	}
	if fs.NArg() > 0 {
		return nil, usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	if (o.certFile == "") != (o.keyFile == "") {
		return nil, usageError{errors.New("--cert-file and --key-file go together")}
	}
	if o.delay < 0 {
		return nil, usageError{fmt.Errorf("--delay %s is negative", o.delay)}
	}
	if !(o.errorRate >= 0 && o.errorRate <= 1) { // also rejects NaN
		return nil, usageError{fmt.Errorf("--error-rate %v is not between 0 and 1", o.errorRate)}
	}
	return o, nil
}

// run is the whole program; it returns the exit code. Every failure is one
// line on stderr, never a stack trace.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", name, cli.OneLine(err))
		return 2
	}
	if err := serve(ctx, o, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", name, cli.OneLine(err))
		return 1
	}
	return 0
}

// serve runs the extension, and the admin endpoint if enabled, until ctx is
// done or one of them fails.
func serve(ctx context.Context, o *options, stdout, stderr io.Writer) error {
	variables, err := loadVariables(o.variablesFile)
	if err != nil {
		return err
	}
	tlsConfig, err := servingTLS(o, stdout)
	if err != nil {
		return err
	}

	ext := sampleextension.New(sampleextension.Options{
		Variables: map[string][]clusterv1.ClusterClassVariable{sampleextension.DiscoverVariablesHandler: variables},
		Seed:      o.seed,
	})
	ext.SetFaults("", sampleextension.Faults{Delay: o.delay, ErrorRate: o.errorRate})

	extListener, err := net.Listen("tcp", o.address)
	if err != nil {
		return fmt.Errorf("listen on --address %s: %w", o.address, err)
	}
	var adminListener net.Listener
	if o.adminAddress != "" {
		if adminListener, err = net.Listen("tcp", o.adminAddress); err != nil {
			_ = extListener.Close()
			return fmt.Errorf("listen on --admin-address %s: %w", o.adminAddress, err)
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errorLog := log.New(stderr, name+": ", 0)
	results := make(chan error, 2)
	servers := 1
	go func() {
		results <- sampleextension.Serve(ctx, extListener, ext, sampleextension.ServeOptions{TLSConfig: tlsConfig, ErrorLog: errorLog})
	}()
	fmt.Fprintf(stdout, "serving the Runtime Extension on https://%s\n", extListener.Addr())
	if adminListener != nil {
		servers++
		go func() {
			results <- sampleextension.Serve(ctx, adminListener, ext.Admin(), sampleextension.ServeOptions{ErrorLog: errorLog})
		}()
		fmt.Fprintf(stdout, "serving the admin endpoint on http://%s\n", adminListener.Addr())
	}

	// The first to end (a failure, or both at shutdown) takes the other down.
	var errs []error
	for range servers {
		if err := <-results; err != nil {
			errs = append(errs, err)
		}
		cancel()
	}
	return errors.Join(errs...)
}

// servingTLS loads the certificate files, or generates a certificate and
// writes its CA to --ca-out.
func servingTLS(o *options, stdout io.Writer) (*tls.Config, error) {
	if o.certFile != "" {
		certPEM, err := os.ReadFile(o.certFile)
		if err != nil {
			return nil, fmt.Errorf("--cert-file: %w", err)
		}
		keyPEM, err := os.ReadFile(o.keyFile)
		if err != nil {
			return nil, fmt.Errorf("--key-file: %w", err)
		}
		cfg, err := sampleextension.ServingTLSConfig(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("--cert-file %s and --key-file %s: %w", o.certFile, o.keyFile, err)
		}
		return cfg, nil
	}

	caPEM, certPEM, keyPEM, err := sampleextension.SelfSignedCertificate(strings.Split(o.hosts, ","), certificateLifetime)
	if err != nil {
		return nil, fmt.Errorf("--hosts %q: %w", o.hosts, err)
	}
	if err := os.WriteFile(o.caOut, caPEM, 0o644); err != nil {
		return nil, fmt.Errorf("write the CA to --ca-out: %w", err)
	}
	fmt.Fprintf(stdout, "wrote the CA of a generated certificate for %s to %s; use it as the ExtensionConfig's spec.clientConfig.caBundle\n", o.hosts, o.caOut)
	return sampleextension.ServingTLSConfig(certPEM, keyPEM)
}

// loadVariables reads a YAML or JSON list of ClusterClassVariables; no file
// means no variables.
func loadVariables(path string) ([]clusterv1.ClusterClassVariable, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--variables-file: %w", err)
	}
	var vars []clusterv1.ClusterClassVariable
	// Strict, so that a misspelt field fails here rather than vanishing.
	if err := yaml.UnmarshalStrict(data, &vars); err != nil {
		return nil, fmt.Errorf("--variables-file %s is not a list of ClusterClassVariables: %w", path, err)
	}
	return vars, nil
}
