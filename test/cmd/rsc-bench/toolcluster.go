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
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/logcap"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
)

// startToolCluster starts the fresh local control plane a load or drill run
// uses: logging cut to errors (tables and reports go to stdout), the data
// directory wiped, the CRDs installed. It returns a client configuration
// that is not throttled below what the tools drive.
func startToolCluster(ctx context.Context, localDir, binDir string, stderr io.Writer) (*localcluster.Cluster, *rest.Config, error) {
	logErrorsOnly(stderr)
	if err := os.RemoveAll(localDir); err != nil {
		return nil, nil, fmt.Errorf("wipe %s: %w", localDir, err)
	}
	cluster, err := localcluster.StartWithProjectCRDs(ctx, localcluster.Options{Dir: localDir, BinDir: binDir})
	if err != nil {
		return nil, nil, err
	}
	config := cluster.Config()
	config.QPS, config.Burst = 500, 1000
	return cluster, config, nil
}

// logErrorsOnly sends controller-runtime's logging to stderr, errors only:
// the tools' tables and reports go to stdout.
func logErrorsOnly(stderr io.Writer) {
	ctrl.SetLogger(logcap.Cap(zap.New(zap.WriteTo(stderr), zap.Level(zapcore.ErrorLevel), zap.StacktraceLevel(zapcore.PanicLevel)), logcap.MaxVerbosity))
}

// controllerBinary returns the absolute path of the --controller-binary
// flag's file, or an error saying how to build it.
func controllerBinary(path string) (string, error) {
	binary, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(binary); err != nil || info.IsDir() {
		return "", fmt.Errorf("--controller-binary %s: not a file (make core-manager builds the drop-in, make build the drills' binary): %v", path, err)
	}
	return binary, nil
}
