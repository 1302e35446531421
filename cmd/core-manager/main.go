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

// Command core-manager is Cluster API v1.14.2's core manager with our
// ExtensionConfig and ClusterClass controllers and our runtime client: a
// drop-in for the capi-controller-manager Deployment, taking its flags
// unchanged. See package dropin for what runs.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	logsv1 "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/cmd/core-manager/cmdline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/cmd/core-manager/dropin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/logcap"
)

const name = "core-manager"

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }

func run(args []string, stderr io.Writer) int {
	o, err := cmdline.Parse(name, args)
	if errors.Is(err, pflag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	// client-go logs request headers from -v=7 on and bodies from 8 on,
	// and those carry ExtensionConfigs' caBundles: the level is capped at
	// 6, for every file --vmodule names too.
	asked := o.Logs.Verbosity
	o.Logs.Verbosity = min(asked, logcap.MaxVerbosity)
	var loweredModules []string
	for i, m := range o.Logs.VModule {
		if m.Verbosity > logcap.MaxVerbosity {
			loweredModules = append(loweredModules, m.FilePattern)
			o.Logs.VModule[i].Verbosity = logcap.MaxVerbosity
		}
	}
	if err := logsv1.ValidateAndApply(o.Logs, nil); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	ctrl.SetLogger(klog.Background())
	log := ctrl.Log.WithName("setup")
	if asked != o.Logs.Verbosity {
		log.Info(fmt.Sprintf("-v=%d lowered to %d: higher levels make client-go log request headers and bodies, which carry CA bundles", asked, o.Logs.Verbosity))
	}
	if len(loweredModules) > 0 {
		log.Info(fmt.Sprintf("--vmodule levels of %v lowered to %d: higher levels make client-go log request headers and bodies, which carry CA bundles", loweredModules, logcap.MaxVerbosity))
	}
	o.EachFlag(func(name, value string) { klog.V(1).Infof("FLAG: --%s=%q", name, value) })
	log.Info("Version: " + buildVersion())

	restConfig, err := clusterConfig(o.Kubeconfig)
	if err != nil {
		log.Error(err, "Unable to start manager")
		return 1
	}
	ctx := ctrl.SetupSignalHandler()
	mgr, err := dropin.New(ctx, restConfig, o)
	if err != nil {
		log.Error(err, "Unable to start manager")
		return 1
	}
	for _, p := range mgr.Parts {
		log.Info("Running "+p.Kind+" "+p.Name, "owner", p.Owner)
	}
	log.Info("Starting manager", "version", buildVersion())
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "Problem running manager")
		return 1
	}
	return 0
}

// buildVersion names the commit this binary was built from and the Cluster
// API release whose reconcilers and webhooks it runs.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build information)"
	}
	revision := "unknown revision"
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			revision = s.Value
		}
	}
	capi := "unknown"
	for _, dep := range info.Deps {
		if dep.Path == "sigs.k8s.io/cluster-api" {
			capi = dep.Version
		}
	}
	return fmt.Sprintf("%s (git commit: %s) with sigs.k8s.io/cluster-api %s", name, revision, capi)
}

// clusterConfig reads --kubeconfig, or else, as Cluster API's manager does,
// $KUBECONFIG, the in-cluster service account, or ~/.kube/config.
func clusterConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		return clientcmd.BuildConfigFromFlags("", kubeconfig)
	}
	return ctrl.GetConfig()
}
