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
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/devrun"
)

const name = "rsc-dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole program; it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	var o devrun.Options
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.LocalDir, "local-dir", ".local", "Parent of management/, which holds the management cluster's data, certificates and logs; started afresh by every launch.")
	fs.StringVar(&o.BinDir, "bin-dir", "", "Directory with etcd, kube-apiserver, kubectl, core-manager, sample-extension and what `make capi-providers` builds; defaults to $"+toolbin.DirEnv+" or bin/ of the project.")
	fs.StringVar(&o.ExamplesDir, "examples", "examples", "Directory of YAML applied in file name order, of extension/variables.yaml, the sample extension's DiscoverVariables answer, and of next/second-cluster.yaml, which a printed step creates.")
	fs.StringVar(&o.ExtensionAddress, "extension-address", devrun.DefaultExtensionAddress, "Address the sample extension serves its hooks on (HTTPS).")
	fs.StringVar(&o.ExtensionAdminAddress, "extension-admin-address", devrun.DefaultExtensionAdminAddress, "Address of the sample extension's admin endpoint (call counts, variables, faults).")
	fs.IntVar(&o.TestExtensionPort, "test-extension-port", devrun.DefaultTestExtensionPort, "Port Cluster API's test extension serves its hooks on, on every interface.")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags] [-- core manager flags]\n\nFlags:\n", name)
		fs.PrintDefaults()
	}
	return cli.Run(fs, args, stderr, func() error {
		o.CoreManagerArgs = fs.Args()
		if o.BinDir == "" {
			dir, err := toolbin.Dir()
			if err != nil {
				return err
			}
			o.BinDir = dir
		}
		ctx, cancel := cli.ShutdownContext()
		defer cancel()
		return devrun.Run(ctx, o, stdout)
	})
}
