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

package localclustertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
)

// auditPolicy records every request once it completes (and a watch once
// it starts), with its user, verb and object but no bodies.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages:
- RequestReceived
rules:
- level: Metadata
`

// auditLogMaxMegabytes is where kube-apiserver would rotate the log: far
// beyond what any run here writes (a create of 200 Clusters wrote 190 MB).
const auditLogMaxMegabytes = 1 << 20

// AuditLog sets opts up so that kube-apiserver records every request it
// completes, with its user, verb and object: the one count of what each
// client sent that no client keeps itself. It writes the audit policy into
// opts.Dir and returns where the log goes, one JSON object per line
// (logs/audit.log there). Call it before localcluster.Start.
func AuditLog(opts *localcluster.Options) (string, error) {
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return "", fmt.Errorf("data directory %q: %w", opts.Dir, err)
	}
	logs := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logs, 0o700); err != nil {
		return "", fmt.Errorf("data directory %s: %w", dir, err)
	}
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return "", fmt.Errorf("write audit policy: %w", err)
	}
	path := filepath.Join(logs, "audit.log")
	opts.APIServerArgs = append(opts.APIServerArgs,
		"--audit-policy-file="+policy,
		"--audit-log-path="+path,
		"--audit-log-format=json",
		// Written before the response is sent, so a count read after
		// a client's request returned includes it.
		"--audit-log-mode=blocking",
		// Never rotated within a run: kube-apiserver rotates at 100 MB
		// unless told otherwise, which a create of 200 Clusters passes in
		// 15 minutes, and counts hold offsets into one file.
		"--audit-log-maxsize="+strconv.Itoa(auditLogMaxMegabytes),
	)
	return path, nil
}
