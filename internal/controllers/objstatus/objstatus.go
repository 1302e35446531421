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

package objstatus

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runecut"
)

// Conditioned is an object with metav1 conditions in its status.
type Conditioned interface {
	client.Object
	GetConditions() []metav1.Condition
	SetConditions([]metav1.Condition)
}

// SetCondition sets one condition at the object's generation.
// meta.SetStatusCondition keeps the transition time unless the status
// flips, so setting an unchanged outcome leaves status equal. Conditions
// are kept in Cluster API's order (see conditionLess), so a status written
// by either controller reads the same.
func SetCondition(obj Conditioned, condType string, status metav1.ConditionStatus, reason, message string) {
	conditions := obj.GetConditions()
	meta.SetStatusCondition(&conditions, metav1.Condition{
		Type:               condType,
		Status:             status,
		Reason:             reason,
		Message:            truncate(message, maxMessageBytes),
		ObservedGeneration: obj.GetGeneration(),
	})
	sort.SliceStable(conditions, func(i, j int) bool { return conditionLess(conditions[i].Type, conditions[j].Type) })
	obj.SetConditions(conditions)
}

// conditionRank places condition types as Cluster API's conditions.Set
// sorts them: Available and Ready first, Paused and Deleting last, every
// other type of ours in between (Cluster API ranks many more types that
// never appear on ClusterClasses or ExtensionConfigs).
func conditionRank(condType string) int {
	switch condType {
	case clusterv1.AvailableCondition:
		return 0
	case clusterv1.ReadyCondition:
		return 1
	case clusterv1.PausedCondition:
		return 3
	case clusterv1.DeletingCondition:
		return 4
	default:
		return 2
	}
}

func conditionLess(a, b string) bool {
	ra, rb := conditionRank(a), conditionRank(b)
	return ra < rb || (ra == rb && a < b)
}

// V1Beta1Conditioned is an object that also carries the conditions v1beta1
// clients read, in status.deprecated.v1beta1.conditions.
type V1Beta1Conditioned interface {
	client.Object
	GetV1Beta1Conditions() clusterv1.Conditions
	SetV1Beta1Conditions(clusterv1.Conditions)
}

// SetV1Beta1Condition sets one v1beta1 condition as Cluster API does: the
// transition time moves whenever status, reason, severity or message
// change, and the list is sorted with Ready first, then by type. A True
// condition carries no reason, severity or message.
func SetV1Beta1Condition(obj V1Beta1Conditioned, condType clusterv1.ConditionType, status corev1.ConditionStatus,
	reason string, severity clusterv1.ConditionSeverity, message string) {
	next := clusterv1.Condition{Type: condType, Status: status, Reason: reason, Severity: severity, Message: truncate(message, maxV1Beta1MessageBytes)}
	conditions := obj.GetV1Beta1Conditions()
	found := false
	for i := range conditions {
		if conditions[i].Type != condType {
			continue
		}
		found = true
		old := conditions[i]
		if old.Status == next.Status && old.Reason == next.Reason && old.Severity == next.Severity && old.Message == next.Message {
			return
		}
		next.LastTransitionTime = now()
		conditions[i] = next
	}
	if !found {
		next.LastTransitionTime = now()
		conditions = append(conditions, next)
	}
	sort.Slice(conditions, func(i, j int) bool {
		a, b := conditions[i].Type, conditions[j].Type
		return (a == clusterv1.ReadyV1Beta1Condition || a < b) && b != clusterv1.ReadyV1Beta1Condition
	})
	obj.SetV1Beta1Conditions(conditions)
}

// The longest condition messages the CRDs take: metav1.Condition's, and
// the v1beta1 conditions' in status.deprecated.
const (
	maxMessageBytes        = 32768
	maxV1Beta1MessageBytes = 10240
)

// truncationMark ends a message cut to fit.
const truncationMark = " ... (truncated)"

// truncate cuts message to at most limit bytes, on a rune boundary, marking
// the cut: a longer message would make the apiserver refuse the whole
// status write, on every retry.
func truncate(message string, limit int) string {
	if len(message) <= limit {
		return message
	}
	return runecut.Prefix(message, limit-len(truncationMark)) + truncationMark
}

// now is a transition time as Cluster API records it: UTC, whole seconds.
func now() metav1.Time { return metav1.NewTime(time.Now().UTC().Truncate(time.Second)) }

// Patch writes after's status when statusOf(after) differs from
// statusOf(before), and records the write in writes (see Writes.Fresh,
// which before must have gone through). An object deleted meanwhile is not
// an error.
func Patch[T client.Object](ctx context.Context, writes *Writes, c client.Client, before, after T, statusOf func(T) any) error {
	if equality.Semantic.DeepEqual(statusOf(before), statusOf(after)) {
		return nil
	}
	if err := c.Status().Patch(ctx, after, client.MergeFrom(before)); err != nil {
		if apierrors.IsNotFound(err) {
			writes.Forget(client.ObjectKeyFromObject(after))
			return nil
		}
		return fmt.Errorf("patch status of %s: %w", client.ObjectKeyFromObject(after), err)
	}
	writes.record(after)
	return nil
}

// SetPaused sets the Paused condition from the cluster.x-k8s.io/paused
// annotation, worded as Cluster API words it for an object of kind, and
// reports whether the object is paused.
func SetPaused(obj Conditioned, kind string) bool {
	if _, paused := obj.GetAnnotations()[clusterv1.PausedAnnotation]; paused {
		SetCondition(obj, clusterv1.PausedCondition, metav1.ConditionTrue, clusterv1.PausedReason,
			kind+" has the "+clusterv1.PausedAnnotation+" annotation")
		return true
	}
	SetCondition(obj, clusterv1.PausedCondition, metav1.ConditionFalse, clusterv1.NotPausedReason, "")
	return false
}
