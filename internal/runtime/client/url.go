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

package client

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path"
	"strconv"

	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
)

// URL returns the address of a hook path on the extension: the URL of
// spec.clientConfig.url, or https://<name>.<namespace>.svc:<port> for a
// service reference, with the reference's path and then hookPath appended.
func URL(config runtimev1.ClientConfig, hookPath string) (*url.URL, error) {
	switch {
	case config.URL != "" && config.Service.IsDefined():
		return nil, errors.New("spec.clientConfig sets both url and service: set exactly one")
	case config.URL != "":
		u, err := url.Parse(config.URL)
		if err != nil {
			return nil, fmt.Errorf("spec.clientConfig.url does not parse: %w", err)
		}
		if u.Scheme != "https" {
			return nil, fmt.Errorf("spec.clientConfig.url %q must use https", redact(u))
		}
		if u.Host == "" {
			return nil, fmt.Errorf("spec.clientConfig.url %q has no host", redact(u))
		}
		if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return nil, errors.New("spec.clientConfig.url must not carry user info, a query or a fragment")
		}
		u.Path = path.Join("/", u.Path, hookPath)
		return u, nil
	case config.Service.IsDefined():
		svc := config.Service
		if svc.Name == "" || svc.Namespace == "" {
			return nil, errors.New("spec.clientConfig.service needs both name and namespace")
		}
		port := int32(defaultServicePort)
		if svc.Port != nil {
			port = *svc.Port
		}
		if port < 1 || port > 65535 {
			return nil, fmt.Errorf("spec.clientConfig.service.port %d is not a valid port", port)
		}
		return &url.URL{
			Scheme: "https",
			Host:   net.JoinHostPort(svc.Name+"."+svc.Namespace+".svc", strconv.Itoa(int(port))),
			Path:   path.Join("/", svc.Path, hookPath),
		}, nil
	default:
		return nil, errors.New("spec.clientConfig sets neither url nor service")
	}
}

// MergeSettings returns the settings sent to an extension: the
// ExtensionConfig's defaults overlaid by the request's own, which win.
func MergeSettings(defaults, request map[string]string) map[string]string {
	if len(defaults) == 0 && len(request) == 0 {
		return nil
	}
	merged := make(map[string]string, len(defaults)+len(request))
	for k, v := range defaults {
		merged[k] = v
	}
	for k, v := range request {
		merged[k] = v
	}
	return merged
}
