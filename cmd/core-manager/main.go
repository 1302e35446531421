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
	// client-go dumps request and response bodies from -v=8 on, and those
	// carry ExtensionConfigs' caBundles: the level is capped below that.
	asked := o.Logs.Verbosity
	if asked > logcap.MaxVerbosity {
		o.Logs.Verbosity = logcap.MaxVerbosity
	}
	if err := logsv1.ValidateAndApply(o.Logs, nil); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	ctrl.SetLogger(klog.Background())
	log := ctrl.Log.WithName("setup")
	if asked != o.Logs.Verbosity {
		log.Info(fmt.Sprintf("-v=%d lowered to %d: higher levels make client-go log request bodies, which carry CA bundles", asked, o.Logs.Verbosity))
	}

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
	log.Info("Starting manager", "version", dropin.ClusterAPI+" with the runtime-sdk-controller's Runtime SDK")
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "Problem running manager")
		return 1
	}
	return 0
}

// clusterConfig reads --kubeconfig, or else, as Cluster API's manager does,
// $KUBECONFIG, the in-cluster service account, or ~/.kube/config.
func clusterConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		return clientcmd.BuildConfigFromFlags("", kubeconfig)
	}
	return ctrl.GetConfig()
}
