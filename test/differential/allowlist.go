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

package differential

import (
	"regexp"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// AllowList is every difference we keep on purpose, with the reason.
var AllowList = []Allowance{
	{OursOnlyCondition: userfacing.ExtensionsResolvedCondition,
		Reason: "ours only: names every referenced handler (generate, validate or discover) that is not registered, serves the wrong hook or does not admit the namespace"},
	{OursOnlyCondition: userfacing.ResponsesCachedCondition,
		Reason: "the drop-in only, on an ExtensionConfig with the " + userfacing.ResponseCacheMaxAgeAnnotation + " annotation: reports the max age its GeneratePatches and ValidateTopology answers are cached for, a value that does not parse, or that a paused config caches nothing"},
	{Path: regexp.MustCompile(`^ClusterClass ` + NamespaceOther + `/oversized-variables \.status\.`),
		Reason: "an extension answered more variables than status.variables may hold (1000): Cluster API's patch of status.variables is refused " +
			"on every retry while its separate conditions patch lands, so it shows VariablesReady True with no variables published and retries forever; " +
			"we refuse the answer before writing and say so in VariablesReady False"},
	{Path: regexp.MustCompile(`^Template .* \.metadata\.ownerReferences$`), Holds: Superset,
		Reason: "Cluster API adds itself to a template's ownerReferences with a merge patch of the whole list and no resourceVersion, " +
			"so ClusterClasses sharing a template that reconcile at once can drop each other's entry until its next resync; " +
			"we patch with optimistic locking, so ours may hold an entry Cluster API's run lost, never fewer"},
	{Path: regexp.MustCompile(`^ExtensionConfig .* \.status\.handlers$`), Holds: SameEntries,
		Reason: "both managers record the handlers in the order the Discovery answer lists them; Cluster API's server library " +
			"lists them from a Go map, so the order changes from one answer to the next, under either manager"},
}
