package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/config/crd"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/logcap"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/skeleton"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/toolbin"
)

// runTool parses a subcommand's flags and runs it: 0 on success and for
// -h, 2 for bad flags, 1 with one line on stderr when main fails.
func runTool(fs *flag.FlagSet, args []string, stderr io.Writer, main func() error) int {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := main(); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", fs.Name(), oneLine(err))
		return 1
	}
	return 0
}

// startToolCluster starts the fresh local control plane a load or drill run
// uses: logging cut to errors (tables and reports go to stdout), the data
// directory wiped, the CRDs installed. It returns a client configuration
// that is not throttled below what the tools drive.
func startToolCluster(ctx context.Context, localDir, binDir string, stderr io.Writer) (*localcluster.Cluster, *rest.Config, error) {
	ctrl.SetLogger(logcap.Cap(zap.New(zap.WriteTo(stderr), zap.Level(zapcore.ErrorLevel), zap.StacktraceLevel(zapcore.PanicLevel)), logcap.MaxVerbosity))
	if err := os.RemoveAll(localDir); err != nil {
		return nil, nil, fmt.Errorf("wipe %s: %w", localDir, err)
	}
	cluster, err := startLocalCluster(ctx, localcluster.Options{Dir: localDir, BinDir: binDir})
	if err != nil {
		return nil, nil, err
	}
	config := cluster.Config()
	config.QPS, config.Burst = 500, 1000
	return cluster, config, nil
}

// startLocalCluster starts a local control plane with our CRDs, from the
// binaries in opts.BinDir, or where toolbin finds them when it is empty.
func startLocalCluster(ctx context.Context, opts localcluster.Options) (*localcluster.Cluster, error) {
	if opts.BinDir == "" {
		var err error
		if opts.BinDir, err = toolbin.Dir(); err != nil {
			return nil, err
		}
	}
	crds, err := crd.Definitions()
	if err != nil {
		return nil, err
	}
	// The template kinds of the tools' ClusterClasses (see skeleton).
	opts.CRDs = append(crds, skeleton.TemplateCRDs()...)
	cluster, err := localcluster.Start(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("local control plane: %w", err)
	}
	return cluster, nil
}
