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

package devrun

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// secondCluster is the Cluster a printed step creates, in ExamplesDir.
const secondCluster = "next/second-cluster.yaml"

// nextSteps is what the printed steps need to know.
type nextSteps struct {
	// took is the time from the launch to now.
	took                                 time.Duration
	logs, binDir, kubeconfig, metricsURL string
	examplesDir                          string
	// examples are the objects applied, by objectKey: a step that names
	// one is printed only when it is there.
	examples map[string]bool
}

// printNextSteps prints commands that work as printed from the working
// directory, each with what to look for in the summary.
func printNextSteps(out io.Writer, s nextSteps) {
	kubectl := cli.Relative(filepath.Join(s.binDir, "kubectl"))
	var b strings.Builder
	fmt.Fprintf(&b, "Up in %s. Logs are in %s. Next, in another terminal:\n", s.took.Round(time.Second), cli.Relative(s.logs))
	fmt.Fprintf(&b, "  export KUBECONFIG=%s\n", cli.Relative(s.kubeconfig))
	fmt.Fprintf(&b, "  %s get clusters,clusterclasses -A\n", kubectl)
	if s.examples[objectKey("ExtensionConfig", "", "hardening")] && s.examples[objectKey("ClusterClass", "team-a", "hardened")] {
		// The date makes every run of the command a change.
		fmt.Fprintf(&b, "  %s patch extensionconfig hardening --type merge -p \"{\\\"spec\\\":{\\\"settings\\\":{\\\"revision\\\":\\\"$(date +%%s)\\\"}}}\"\n", kubectl)
		b.WriteString("      (only team-a/hardened uses hardening: the summary shows one more ClusterClass reconcile, and no other)\n")
		fmt.Fprintf(&b, "  %s who-uses extensionconfig hardening\n", cli.Relative(filepath.Join(s.binDir, "runtime-sdk-controller")))
	}
	second := filepath.Join(s.examplesDir, secondCluster)
	if s.examples[objectKey("ExtensionConfig", "", "test-extension")] && fileExists(second) {
		fmt.Fprintf(&b, "  %s annotate --overwrite extensionconfig test-extension %s=10m\n", kubectl, userfacing.ResponseCacheMaxAgeAnnotation)
		fmt.Fprintf(&b, "  %s create -f %s\n", kubectl, cli.Relative(second))
		b.WriteString("      (a second Cluster, team-b/dev-2: with the annotation, the test extension's answers to its repeated GeneratePatches requests come from memory, and the summary's response cache hits grow)\n")
	}
	fmt.Fprintf(&b, "  curl -s %s | grep -E '^(capi_runtime_sdk_requests_total|runtime_sdk_)'\n", s.metricsURL)
	b.WriteString("Ctrl-C stops everything.\n")
	_, _ = io.WriteString(out, b.String())
}
