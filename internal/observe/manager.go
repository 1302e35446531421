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

package observe

import (
	"context"
	"crypto/tls"
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/logcap"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
)

// What observe mode reads, and nothing it could write: it runs beside
// Cluster API's own manager, which owns every status.
// +kubebuilder:rbac:groups=runtime.cluster.x-k8s.io,resources=extensionconfigs,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusterclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// The metrics filter asks kube-apiserver who a caller is and whether it
// may read /metrics.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// ManagerOptions are the settings an operator chooses with flags.
type ManagerOptions struct {
	// MetricsBindAddress serves Prometheus metrics; "0" disables it.
	MetricsBindAddress string
	// MetricsSecure serves metrics over HTTPS to callers whose bearer
	// token kube-apiserver authenticates (TokenReview) and authorises for
	// a get of /metrics (SubjectAccessReview), as Cluster API's managers do.
	MetricsSecure bool
	// MetricsCertDir holds tls.crt and tls.key for secure metrics, read
	// again when they change; empty, or without the files, serves a
	// self-signed certificate kept in memory.
	MetricsCertDir string
	// HealthProbeBindAddress serves /healthz and /readyz; "0" disables it.
	HealthProbeBindAddress string
	// Logger, when set, replaces controller-runtime's root logger for this
	// manager (capped like every logger, see logcap).
	Logger logr.Logger
}

// NewManager builds observe mode's manager, not started: the index and
// the Observer, metrics and probes, and no leader election, since it
// writes nothing and every replica exports what it sees.
func NewManager(ctx context.Context, config *rest.Config, opts ManagerOptions) (ctrl.Manager, error) {
	mgrOpts := ctrl.Options{
		Scheme:                 scheme.New(),
		Metrics:                metricsOptions(opts),
		HealthProbeBindAddress: opts.HealthProbeBindAddress,
		Cache:                  ctrlcache.Options{DefaultTransform: stripUnread},
	}
	if opts.Logger.GetSink() != nil {
		mgrOpts.Logger = logcap.Cap(opts.Logger, logcap.MaxVerbosity)
	}
	mgr, err := ctrl.NewManager(config, mgrOpts)
	if err != nil {
		return nil, fmt.Errorf("create manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("add health check: %w", err)
	}
	// Nothing to warm up; without a check /readyz would answer 404 and a
	// Deployment's readiness probe would never pass.
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("add readiness check: %w", err)
	}
	if err := extensionindex.IndexClusterClasses(ctx, mgr.GetFieldIndexer()); err != nil {
		return nil, err
	}
	if err := mgr.Add(&Observer{Cache: mgr.GetCache()}); err != nil {
		return nil, err
	}
	return mgr, nil
}

// metricsOptions serves metrics as opts say: plain HTTP, or HTTPS behind
// authentication and authorisation.
func metricsOptions(opts ManagerOptions) metricsserver.Options {
	m := metricsserver.Options{BindAddress: opts.MetricsBindAddress}
	if !opts.MetricsSecure {
		return m
	}
	m.SecureServing = true
	m.FilterProvider = filters.WithAuthenticationAndAuthorization
	if opts.MetricsCertDir != "" {
		m.CertDir = opts.MetricsCertDir
	}
	// HTTP/2's stream handling has been the way in for rapid-reset and
	// similar floods; a scrape needs HTTP/1.1 only.
	m.TLSOpts = []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }}
	return m
}

// stripUnread drops from every cached object its managedFields, often its
// largest part, and from metadata-only objects (Namespaces) their
// annotations: nothing reads them.
func stripUnread(obj any) (any, error) {
	if o, err := meta.Accessor(obj); err == nil {
		o.SetManagedFields(nil)
	}
	if partial, ok := obj.(*metav1.PartialObjectMetadata); ok {
		partial.SetAnnotations(nil)
	}
	return obj, nil
}
