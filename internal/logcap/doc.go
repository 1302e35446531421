// Package logcap bounds the verbosity of a logr.Logger.
//
// client-go logs whole request and response bodies at V(8) through the
// logger in the context, which controller-runtime fills with the manager's
// logger. At that verbosity an ExtensionConfig's caBundle, or a Secret read
// for CA injection, would reach the logs. Capping every logger the manager
// hands out at MaxVerbosity keeps our own decision lines (V(4)) and
// client-go's request lines (V(6)) while body dumps can never be enabled,
// whatever --zap-log-level says.
package logcap
