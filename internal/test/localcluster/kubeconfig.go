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
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// KubeconfigPath is the file that `export KUBECONFIG=...` should name.
func (c *Cluster) KubeconfigPath() string { return filepath.Join(c.opts.Dir, "kubeconfig") }

func (c *Cluster) restConfig() *rest.Config {
	return &rest.Config{
		Host: "https://127.0.0.1:" + strconv.Itoa(c.state.APIServer),
		TLSClientConfig: rest.TLSClientConfig{
			CAFile:   c.pki.caCert(),
			CertFile: c.pki.adminCert(),
			KeyFile:  c.pki.adminKey(),
		},
		QPS:   200,
		Burst: 400,
	}
}

// writeKubeconfig writes a kubeconfig that embeds the CA and admin
// credentials, so it keeps working when copied elsewhere on this machine.
func (c *Cluster) writeKubeconfig() error {
	return c.writeKubeconfigFor("runtime-sdk-local", c.pki.adminCert(), c.pki.adminKey(), c.KubeconfigPath())
}

// writeKubeconfigFor writes, at path, a kubeconfig of a context named name
// that embeds the CA and the client certificate and key at certPath and
// keyPath, readable by its owner only.
func (c *Cluster) writeKubeconfigFor(name, certPath, keyPath, path string) error {
	ca, err := os.ReadFile(c.pki.caCert())
	if err != nil {
		return err
	}
	cert, err := os.ReadFile(certPath)
	if err != nil {
		return err
	}
	key, err := os.ReadFile(keyPath)
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: c.config.Host, CertificateAuthorityData: ca}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: "default"}
	cfg.CurrentContext = name
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return os.Chmod(path, 0o600)
}
