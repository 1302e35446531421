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

package localcluster

import (
	"context"
	"fmt"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/config/crd"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
)

// StartWithProjectCRDs starts a control plane, as Start does, that serves
// our CRDs and the template CRDs a ClusterClass references (both embedded in
// config/crd), from the binaries in opts.BinDir, or where toolbin finds them
// when it is empty: what the load tool and the drills run against.
func StartWithProjectCRDs(ctx context.Context, opts Options) (*Cluster, error) {
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
	templates, err := crd.TemplateDefinitions()
	if err != nil {
		return nil, err
	}
	opts.CRDs = append(crds, templates...)
	cluster, err := Start(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("local control plane: %w", err)
	}
	return cluster, nil
}
