package objstatus

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Conditioned is an object with metav1 conditions in its status.
type Conditioned interface {
	client.Object
	GetConditions() []metav1.Condition
	SetConditions([]metav1.Condition)
}

// SetCondition sets one condition at the object's generation.
// meta.SetStatusCondition keeps the transition time unless the status
// flips, so setting an unchanged outcome leaves status equal.
func SetCondition(obj Conditioned, condType string, status metav1.ConditionStatus, reason, message string) {
	conditions := obj.GetConditions()
	meta.SetStatusCondition(&conditions, metav1.Condition{
		Type:               condType,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: obj.GetGeneration(),
	})
	obj.SetConditions(conditions)
}

// Patch writes after's status when statusOf(after) differs from
// statusOf(before). An object deleted meanwhile is not an error.
func Patch[T client.Object](ctx context.Context, c client.Client, before, after T, statusOf func(T) any) error {
	if equality.Semantic.DeepEqual(statusOf(before), statusOf(after)) {
		return nil
	}
	if err := c.Status().Patch(ctx, after, client.MergeFrom(before)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("patch status of %s: %w", client.ObjectKeyFromObject(after), err)
	}
	return nil
}
