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
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.uber.org/zap/zapcore"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/logcap"
)

// logErrorsOnly sends controller-runtime's logging to stderr, errors only:
// the tools' tables and reports go to stdout.
func logErrorsOnly(stderr io.Writer) {
	ctrl.SetLogger(logcap.Cap(zap.New(zap.WriteTo(stderr), zap.Level(zapcore.ErrorLevel), zap.StacktraceLevel(zapcore.PanicLevel)), logcap.MaxVerbosity))
}

// binaryFile returns the absolute path of a binary flag's file, or an
// error naming the flag and the make target that builds it.
func binaryFile(flagName, path, target string) (string, error) {
	binary, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(binary); err != nil || info.IsDir() {
		return "", fmt.Errorf("--%s %s: not a file (make %s builds it): %v", flagName, path, target, err)
	}
	return binary, nil
}
