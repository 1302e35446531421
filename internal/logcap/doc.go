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
