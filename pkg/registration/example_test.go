package registration_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// A nil namespaceSelector admits no namespace, as in Cluster API; the
// empty one, which its webhook defaults nil to, admits every namespace.
func ExampleAdmits() {
	team := map[string]string{"team": "a"}
	unset, _ := registration.Admits(nil, team)
	empty, _ := registration.Admits(&metav1.LabelSelector{}, team)
	fmt.Println(unset, empty)
	// Output:
	// false true
}
