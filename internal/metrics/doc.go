// Package metrics defines the Prometheus metrics of the observability
// contract (see DESIGN.md) and registers them with controller-runtime's
// registry, so they are served on the manager's metrics endpoint beside
// controller-runtime's own.
package metrics
