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
	"errors"
	"flag"
	"fmt"
	"io"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/whouses"
)

// runWhoUses is the `who-uses` subcommand: which ClusterClasses use an
// ExtensionConfig or one of its handlers, read from a live cluster.
func runWhoUses(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(name+" who-uses", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kubeconfig := fs.String("kubeconfig", "", "Path to a kubeconfig; defaults to $KUBECONFIG, in-cluster, then ~/.kube/config.")
	output := fs.String("o", "table", "Output format: table or json.")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s who-uses [flags] extensionconfig NAME | handler HANDLER.EXTENSIONCONFIG\n\nFlags:\n", name)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 2 || (fs.Arg(0) != "extensionconfig" && fs.Arg(0) != "handler") || (*output != "table" && *output != "json") {
		fs.Usage()
		return 2
	}
	if err := whoUses(ctx, *kubeconfig, fs.Arg(0), fs.Arg(1), *output, stdout); err != nil {
		fmt.Fprintf(stderr, "%s who-uses: %s\n", name, cli.OneLine(err))
		return 1
	}
	return 0
}

func whoUses(ctx context.Context, kubeconfig, kind, target, output string, stdout io.Writer) error {
	config, err := loadKubeconfig(kubeconfig)
	if err != nil {
		return err
	}
	c, err := client.New(config, client.Options{Scheme: scheme.New()})
	if err != nil {
		return err
	}
	extensionConfig, handler := target, ""
	if kind == "handler" {
		extensionConfig, handler = "", target
	}
	uses, err := whouses.Find(ctx, c, extensionConfig, handler)
	if err != nil {
		return err
	}
	if output == "json" {
		return whouses.WriteJSON(stdout, uses)
	}
	if len(uses) == 0 {
		_, err := fmt.Fprintf(stdout, "No ClusterClass references %s %s.\n", kind, target)
		return err
	}
	return whouses.WriteTable(stdout, uses)
}
