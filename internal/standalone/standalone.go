package standalone

import (
	"context"
	"crypto/tls"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cluster-api/feature"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/logcap"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/observe"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
)

// LeaderElectionID names the Lease that instances of the controller compete
// for.
const LeaderElectionID = "runtime-sdk-controller.runtime.cluster.x-k8s.io"

// Options are the manager settings an operator chooses with flags.
type Options struct {
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
	// LeaderElection makes only one instance reconcile at a time.
	LeaderElection bool
	// LeaderElectionNamespace holds the Lease; required out of cluster.
	LeaderElectionNamespace string
	// LeaseDuration, RenewDeadline and RetryPeriod tune leader election;
	// zero keeps controller-runtime's defaults.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Controllers configures the two controllers and what they share.
	Controllers controllers.Options
	// ReadOnly runs the observe mode instead of the controllers: nothing is
	// discovered or written; both mappings are accounted in metrics.
	ReadOnly bool
	// Logger, when set, replaces controller-runtime's root logger for this
	// manager (capped like every logger, see logcap).
	Logger logr.Logger
	// SkipNameValidation lets a second manager run our controllers in one
	// process, which controller-runtime refuses by default: tests, and
	// the load tool's restart of its in-process manager.
	SkipNameValidation bool
}

// New builds the manager with its endpoints and controllers, not started.
func New(ctx context.Context, config *rest.Config, opts Options) (ctrl.Manager, error) {
	mgrOpts := ctrl.Options{
		Scheme:                  scheme.New(),
		Metrics:                 metricsOptions(opts),
		HealthProbeBindAddress:  opts.HealthProbeBindAddress,
		LeaderElection:          opts.LeaderElection,
		LeaderElectionID:        LeaderElectionID,
		LeaderElectionNamespace: opts.LeaderElectionNamespace,
		// Release the Lease on a clean shutdown so a successor takes over
		// at once instead of after the lease duration.
		LeaderElectionReleaseOnCancel: true,
		Cache: ctrlcache.Options{
			DefaultTransform: stripUnread,
			ByObject: map[client.Object]ctrlcache.ByObject{
				&corev1.Secret{}: {Transform: keepIdentityOnly},
			},
		},
	}
	if opts.LeaseDuration > 0 {
		mgrOpts.LeaseDuration = &opts.LeaseDuration
	}
	if opts.RenewDeadline > 0 {
		mgrOpts.RenewDeadline = &opts.RenewDeadline
	}
	if opts.RetryPeriod > 0 {
		mgrOpts.RetryPeriod = &opts.RetryPeriod
	}
	if opts.SkipNameValidation {
		mgrOpts.Controller.SkipNameValidation = ptr.To(true)
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
	if opts.ReadOnly {
		err = addObserver(ctx, mgr)
	} else {
		err = addControllers(ctx, mgr, opts.Controllers)
	}
	if err != nil {
		return nil, err
	}
	return mgr, nil
}

// addControllers runs both controllers as Cluster API's manager runs its
// own with the RuntimeSDK and ClusterTopology feature gates on, which is
// what a manager of ClusterClasses with Runtime Extensions runs with.
func addControllers(ctx context.Context, mgr ctrl.Manager, opts controllers.Options) error {
	if err := feature.MutableGates.SetFromMap(map[string]bool{
		string(feature.RuntimeSDK): true, string(feature.ClusterTopology): true,
	}); err != nil {
		return fmt.Errorf("turn on the RuntimeSDK and ClusterTopology feature gates: %w", err)
	}
	_, err := controllers.AddToManager(ctx, mgr, opts)
	return err
}

// The metrics filter asks kube-apiserver who a caller is and whether it
// may read /metrics.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// metricsOptions serves metrics as opts say: plain HTTP, or HTTPS behind
// authentication and authorisation.
func metricsOptions(opts Options) metricsserver.Options {
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

// addObserver wires observe mode: the index and the observer that
// accounts both mappings per ExtensionConfig event, and nothing that
// discovers or writes.
func addObserver(ctx context.Context, mgr ctrl.Manager) error {
	// Nothing to warm up; without a check /readyz would answer 404 and a
	// Deployment's readiness probe would never pass.
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return fmt.Errorf("add readiness check: %w", err)
	}
	if err := extensionindex.IndexClusterClasses(ctx, mgr.GetFieldIndexer()); err != nil {
		return err
	}
	return mgr.Add(&observe.Observer{Cache: mgr.GetCache()})
}

// stripUnread drops from every cached object its managedFields, often its
// largest part, and from metadata-only objects (Namespaces, CRDs,
// templates) their annotations: nothing reads them, and kubectl's
// last-applied-configuration would keep a template's whole content.
func stripUnread(obj any) (any, error) {
	if o, err := meta.Accessor(obj); err == nil {
		o.SetManagedFields(nil)
	}
	if partial, ok := obj.(*metav1.PartialObjectMetadata); ok {
		partial.SetAnnotations(nil)
	}
	return obj, nil
}

// keepIdentityOnly strips a cached Secret to its identity. The CA-injection
// watch needs only its namespace and name (the Secret itself is read
// uncached when a config names it), and a Secret applied with kubectl
// carries its data in the last-applied annotation: none of it may stay in
// memory.
func keepIdentityOnly(obj any) (any, error) {
	if o, err := meta.Accessor(obj); err == nil {
		o.SetAnnotations(nil)
		o.SetLabels(nil)
		o.SetManagedFields(nil)
		o.SetOwnerReferences(nil)
	}
	if secret, ok := obj.(*corev1.Secret); ok {
		secret.Data, secret.StringData = nil, nil
	}
	return obj, nil
}
