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

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

// Run parses a subcommand's flags and runs it: 0 on success and for -h, 2
// for bad flags, 1 with one line on stderr when main fails.
func Run(fs *flag.FlagSet, args []string, stderr io.Writer, main func() error) int {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := main(); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", fs.Name(), OneLine(err))
		return 1
	}
	return 0
}

// OneLine keeps an error to one line: the first line of multi-line causes
// (such as a process log tail) is enough to act on, and the rest is in the
// logs it names.
func OneLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

// ShutdownContext is cancelled by the first SIGINT or SIGTERM, which starts a
// clean shutdown (manager, then kube-apiserver, then etcd). A second signal
// exits at once; child processes then get SIGTERM from the kernel.
func ShutdownContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-signals
		cancel()
		<-signals
		os.Exit(1)
	}()
	return ctx, func() { signal.Stop(signals); cancel() }
}

// Relative shortens path to one relative to the working directory when it
// lies below it, so that a printed command reads as typed; otherwise it is
// returned absolute.
func Relative(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	wd, err := os.Getwd()
	if err != nil {
		return abs
	}
	if rel, err := filepath.Rel(wd, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return abs
}
