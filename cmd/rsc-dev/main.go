package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/toolbin"
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
	fs.StringVar(&o.LocalDir, "local-dir", ".local", "Data directory of the local control plane, the logs and the sample extension's certificate; kept across runs.")
	fs.StringVar(&o.BinDir, "bin-dir", "", "Directory with etcd, kube-apiserver, runtime-sdk-controller, sample-extension and kubectl; defaults to $"+toolbin.DirEnv+" or bin/ of the project.")
	fs.IntVar(&o.APIServerPort, "local-port", 0, "kube-apiserver port of the local control plane; 0 reuses the last one or picks a free one.")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "Run the controller alone against this cluster: no local control plane, no extension, no examples.")
	fs.BoolVar(&o.Bare, "bare", false, "Start the local control plane and the controller only: no extension, no examples.")
	fs.StringVar(&o.ExamplesDir, "examples", "examples", "Directory of YAML applied where absent, and of extension/variables.yaml, the sample extension's DiscoverVariables answer.")
	fs.StringVar(&o.ExtensionAddress, "extension-address", devrun.DefaultExtensionAddress, "Address the sample extension serves its hooks on (HTTPS).")
	fs.StringVar(&o.ExtensionAdminAddress, "extension-admin-address", "127.0.0.1:9444", "Address of the sample extension's admin endpoint (call counts, variables, faults).")
	fs.StringVar(&o.MetricsAddress, "metrics-address", "127.0.0.1:8080", "Address the controller serves its metrics on (plain HTTP).")
	fs.StringVar(&o.HealthAddress, "health-address", "127.0.0.1:8081", "Address of the controller's /healthz and /readyz.")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags] [-- controller flags]\n\nFlags:\n", name)
		fs.PrintDefaults()
	}
	return cli.Run(fs, args, stderr, func() error {
		o.ControllerArgs = fs.Args()
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
