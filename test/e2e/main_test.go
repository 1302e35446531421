package e2e

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

func TestMain(m *testing.M) {
	// The clients here log nothing worth reading; without a logger,
	// controller-runtime prints a stack trace saying so.
	ctrllog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
