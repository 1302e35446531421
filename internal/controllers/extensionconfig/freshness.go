package extensionconfig

import (
	"crypto/sha256"
	"encoding/json"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
)

// RediscoverAnnotation asks for Discovery at once when its value changes,
// for an extension that changed its handlers: an update of any other
// annotation or label runs none (Cluster API discovers on any annotation).
// Without it, a changed answer is found within --rediscovery-interval.
const RediscoverAnnotation = "runtime-sdk-controller.dev/rediscover"

// discovery is the last successful Discovery of a config.
type discovery struct {
	inputs [sha256.Size]byte
	at     time.Time
}

// discoveryInputsOf sums what a Discovery answer can depend on: where and
// how the extension is reached (a Discovery request carries no settings),
// and the value of RediscoverAnnotation.
func discoveryInputsOf(ext *runtimev1.ExtensionConfig) [sha256.Size]byte {
	encoded, _ := json.Marshal(struct {
		ClientConfig runtimev1.ClientConfig `json:"clientConfig"`
		Rediscover   string                 `json:"rediscover"`
	}{ext.Spec.ClientConfig, ext.Annotations[RediscoverAnnotation]})
	return sha256.Sum256(encoded)
}

// discoveryFresh reports whether ext's last Discovery still stands: it
// succeeded with ext's inputs less than interval ago, and status still
// says so. It returns how long it still stands.
func (r *Reconciler) discoveryFresh(ext *runtimev1.ExtensionConfig, interval time.Duration) (time.Duration, bool) {
	v, ok := r.discovered.Load(ext.Name)
	if !ok {
		return 0, false
	}
	last := v.(discovery)
	remaining := interval - time.Since(last.at)
	if last.inputs != discoveryInputsOf(ext) || remaining <= 0 ||
		!meta.IsStatusConditionTrue(ext.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition) {
		return 0, false
	}
	return remaining, true
}
