package registration

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The two readings differ on a nil selector only.
func TestNilSelector_AdmitsDiffersOnANilSelectorOnly(t *testing.T) {
	team := map[string]string{"team": "a"}
	tests := []struct {
		name     string
		selector *metav1.LabelSelector
		labels   map[string]string
		// want is the answer under NilAdmitsAll, then NilAdmitsNone.
		want    [2]bool
		wantErr bool
	}{
		{name: "nil, namespace without labels", selector: nil, labels: nil, want: [2]bool{true, false}},
		{name: "nil, namespace with labels", selector: nil, labels: team, want: [2]bool{true, false}},
		{name: "empty admits all", selector: &metav1.LabelSelector{}, labels: nil, want: [2]bool{true, true}},
		{name: "empty with empty lists admits all", selector: &metav1.LabelSelector{MatchLabels: map[string]string{}, MatchExpressions: []metav1.LabelSelectorRequirement{}}, labels: team, want: [2]bool{true, true}},
		{name: "match", selector: &metav1.LabelSelector{MatchLabels: team}, labels: team, want: [2]bool{true, true}},
		{name: "no match", selector: &metav1.LabelSelector{MatchLabels: team}, labels: map[string]string{"team": "b"}, want: [2]bool{false, false}},
		{name: "expression", selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"b"}}}}, labels: team, want: [2]bool{true, true}},
		{name: "invalid operator", selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: "Sometimes"}}}, wantErr: true},
	}
	for _, tt := range tests {
		for i, reading := range []NilSelector{NilAdmitsAll, NilAdmitsNone} {
			got, err := reading.Admits(tt.selector, tt.labels)
			if (err != nil) != tt.wantErr || got != tt.want[i] {
				t.Errorf("%s: %s.Admits = %v, %v; want %v (error %v)", tt.name, reading, got, err, tt.want[i], tt.wantErr)
			}
		}
	}
}

// The zero value is the API's documented default, so a Mapper or manager
// that sets nothing keeps the standalone controller's reading.
func TestNilSelector_ZeroValueAdmitsAll(t *testing.T) {
	var zero NilSelector
	if zero != NilAdmitsAll {
		t.Errorf("zero value is %s, want %s", zero, NilAdmitsAll)
	}
	if got := NilSelector(7).String(); got != "NilSelector(7)" {
		t.Errorf("String of an unknown reading = %q", got)
	}
}
