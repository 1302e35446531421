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

package localclustertest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"path/filepath"
	"regexp"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
)

// userName is what User accepts: it becomes a file name and the subject of
// a certificate.
var userName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// userCertificateLifetime outlasts any tool run; the CA never leaves this
// machine.
const userCertificateLifetime = 365 * 24 * time.Hour

// User returns a kubeconfig (kubeconfig-<name> in c's data directory) and a
// client configuration for a cluster-admin of its own name, so that the
// audit log tells its requests apart from everyone else's.
func User(c *localcluster.Cluster, name string) (kubeconfigPath string, config *rest.Config, err error) {
	return UserInGroups(c, name, "system:masters")
}

// UserInGroups is User for a user in the given groups only, whose every
// right comes from RBAC: without system:masters, which the apiserver's
// bootstrap policy binds to cluster-admin, it may do nothing until a
// binding names it or one of its groups.
func UserInGroups(c *localcluster.Cluster, name string, groups ...string) (kubeconfigPath string, config *rest.Config, err error) {
	if !userName.MatchString(name) {
		return "", nil, fmt.Errorf("user name %q: want lower-case letters, digits and dashes", name)
	}
	certPEM, keyPEM, err := issueUserCertificate(filepath.Join(c.Dir(), "pki"), name, groups)
	if err != nil {
		return "", nil, fmt.Errorf("certificate of user %s: %w", name, err)
	}
	config = c.Config()
	config.CertFile, config.KeyFile = "", ""
	config.CertData, config.KeyData = certPEM, keyPEM

	// The admin's kubeconfig, with name's credentials in place of the
	// admin's: the same server, CA and namespace.
	kubeconfig, err := clientcmd.LoadFromFile(c.KubeconfigPath())
	if err != nil {
		return "", nil, err
	}
	for _, auth := range kubeconfig.AuthInfos {
		auth.ClientCertificate, auth.ClientKey = "", ""
		auth.ClientCertificateData, auth.ClientKeyData = certPEM, keyPEM
	}
	kubeconfigPath = filepath.Join(c.Dir(), "kubeconfig-"+name)
	if err := clientcmd.WriteToFile(*kubeconfig, kubeconfigPath); err != nil {
		return "", nil, fmt.Errorf("write kubeconfig %s: %w", kubeconfigPath, err)
	}
	return kubeconfigPath, config, nil
}

// issueUserCertificate signs a client certificate for name in groups with
// the CA in pkiDir.
func issueUserCertificate(pkiDir, name string, groups []string) (certPEM, keyPEM []byte, err error) {
	pair, err := tls.LoadX509KeyPair(filepath.Join(pkiDir, "ca.crt"), filepath.Join(pkiDir, "ca.key"))
	if err != nil {
		return nil, nil, err
	}
	ca, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, nil, err
	}
	signer, ok := pair.PrivateKey.(crypto.Signer)
	if !ok {
		return nil, nil, fmt.Errorf("the CA key in %s cannot sign", pkiDir)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	if err != nil {
		return nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	template := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name, Organization: groups},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(userCertificateLifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, key.Public(), signer)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), nil
}
