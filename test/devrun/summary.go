package devrun

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/managerprocess"
)

// notReadyShown bounds how many ClusterClasses without ready variables the
// summary names.
const notReadyShown = 3

// summarizer reads the cluster and the controller's metrics into one line.
type summarizer struct {
	client     client.Client
	metricsURL string
}

// line is the summary now: it changes only when something happened.
func (s *summarizer) line(ctx context.Context) (string, error) {
	classes := &clusterv1.ClusterClassList{}
	if err := s.client.List(ctx, classes); err != nil {
		return "", err
	}
	configs := &runtimev1.ExtensionConfigList{}
	if err := s.client.List(ctx, configs); err != nil {
		return "", err
	}
	scraped, err := managerprocess.Scrape(ctx, s.metricsURL)
	if err != nil {
		return "", err
	}
	ready := 0
	var notReady []string
	for i := range classes.Items {
		cc := &classes.Items[i]
		c := meta.FindStatusCondition(cc.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition)
		switch {
		case c != nil && c.Status == metav1.ConditionTrue:
			ready++
		case c == nil:
			notReady = append(notReady, cc.Namespace+"/"+cc.Name+" (not reconciled yet)")
		default:
			notReady = append(notReady, fmt.Sprintf("%s/%s (%s)", cc.Namespace, cc.Name, c.Reason))
		}
	}
	handlers := 0
	for i := range configs.Items {
		handlers += len(configs.Items[i].Status.Handlers)
	}
	calls := scraped.Sum("runtime_sdk_extension_calls_total", map[string]string{"outcome": metrics.CallSuccess}) +
		scraped.Sum("runtime_sdk_extension_calls_total", map[string]string{"outcome": metrics.CallError})
	var b strings.Builder
	fmt.Fprintf(&b, "ClusterClasses: %d of %d with variables ready · ExtensionConfigs: %d, %d handlers registered · ClusterClass reconciles: %.0f · extension calls: %.0f",
		ready, len(classes.Items), len(configs.Items), handlers,
		scraped.Sum("controller_runtime_reconcile_total", map[string]string{"controller": "clusterclass"}), calls)
	if len(notReady) > notReadyShown {
		notReady = append(notReady[:notReadyShown], fmt.Sprintf("and %d more", len(notReady)-notReadyShown))
	}
	if len(notReady) > 0 {
		fmt.Fprintf(&b, " · not ready: %s", strings.Join(notReady, ", "))
	}
	return b.String(), nil
}
