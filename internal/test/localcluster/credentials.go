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

package localcluster

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"path/filepath"
	"strings"
)

// PKIFile is where the file name (ca.key, sa.key, admin.crt, ...) is kept
// by the control plane whose data directory is dir, for components beside
// it that use the same keys; it can be named before the control plane
// starts.
func PKIFile(dir, name string) string { return filepath.Join(pkiDir(dir), name) }

func pkiDir(dir string) string { return filepath.Join(dir, "pki") }

// CACertPath is the PEM file of the CA that signs every certificate of the
// cluster: the apiserver's, and every client's it accepts.
func (c *Cluster) CACertPath() string { return c.pki.caCert() }

// IssueCertificate signs template with the cluster's CA and writes the
// certificate and a new key to certPath and keyPath. The lab's node gives
// its kubelet, controllers and webhooks identities the apiserver trusts.
func (c *Cluster) IssueCertificate(template *x509.Certificate, certPath, keyPath string) error {
	ca, caKey, err := c.pki.loadCA()
	if err != nil {
		return err
	}
	return c.pki.issue(ca, caKey, template, certPath, keyPath)
}

// WriteKubeconfigAs writes to path a kubeconfig whose client certificate
// names user in groups: the apiserver's certificate authenticator takes
// the common name as the user and the organizations as the groups. The
// certificate and key are kept in the PKI folder, named after user.
func (c *Cluster) WriteKubeconfigAs(path, user string, groups ...string) error {
	base := filepath.Join(c.pki.dir, strings.NewReplacer(":", "-", "/", "-").Replace(user))
	template := &x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: groups},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if err := c.IssueCertificate(template, base+".crt", base+".key"); err != nil {
		return err
	}
	return c.writeKubeconfigFor(user, base+".crt", base+".key", path)
}
