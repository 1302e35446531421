package localcluster

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// userName is what User accepts: it becomes a file name and the subject of
// a certificate.
var userName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// User returns a kubeconfig and a client configuration for a cluster-admin
// of its own name, so that the audit log tells its requests apart from
// everyone else's. The certificate is issued once and kept in the data
// directory.
func (c *Cluster) User(name string) (kubeconfigPath string, config *rest.Config, err error) {
	if !userName.MatchString(name) {
		return "", nil, fmt.Errorf("user name %q: want lower-case letters, digits and dashes", name)
	}
	certPath := c.pki.path("user-" + name + ".crt")
	keyPath := c.pki.path("user-" + name + ".key")
	if !exists(certPath) || !exists(keyPath) {
		if err := c.pki.issueUser(name, certPath, keyPath); err != nil {
			return "", nil, fmt.Errorf("certificate of user %s: %w", name, err)
		}
	}
	config = rest.CopyConfig(c.config)
	config.CertFile, config.KeyFile = certPath, keyPath

	ca, err := os.ReadFile(c.pki.caCert())
	if err != nil {
		return "", nil, err
	}
	cert, err := os.ReadFile(certPath)
	if err != nil {
		return "", nil, err
	}
	key, err := os.ReadFile(keyPath)
	if err != nil {
		return "", nil, err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: c.config.Host, CertificateAuthorityData: ca}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: "default"}
	cfg.CurrentContext = name
	kubeconfigPath = filepath.Join(c.opts.Dir, "kubeconfig-"+name)
	if err := clientcmd.WriteToFile(*cfg, kubeconfigPath); err != nil {
		return "", nil, fmt.Errorf("write kubeconfig of user %s: %w", name, err)
	}
	return kubeconfigPath, config, os.Chmod(kubeconfigPath, 0o600)
}

// issueUser signs a client certificate for name in system:masters with the
// cluster's CA.
func (p pki) issueUser(name, certPath, keyPath string) error {
	pair, err := tls.LoadX509KeyPair(p.caCert(), p.caKey())
	if err != nil {
		return err
	}
	ca, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return err
	}
	signer, ok := pair.PrivateKey.(crypto.Signer)
	if !ok {
		return fmt.Errorf("the CA key in %s cannot sign", p.caKey())
	}
	template := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: name, Organization: []string{"system:masters"}},
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	return p.issue(ca, signer, template, certPath, keyPath)
}
