package controllers_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managertest"
)

var env *apiservertest.Env

func TestMain(m *testing.M) {
	// The managers log through controller-runtime's root logger; tests
	// read what they need from the apiserver and metrics instead.
	ctrl.SetLogger(logr.Discard())
	if err := managertest.TurnOnRuntimeSDK(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(apiservertest.Run(m, &env))
}
