package localcluster

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"path/filepath"
	"regexp"

	"k8s.io/client-go/rest"
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
	kubeconfigPath = filepath.Join(c.opts.Dir, "kubeconfig-"+name)
	if err := c.writeKubeconfigFor(name, certPath, keyPath, kubeconfigPath); err != nil {
		return "", nil, err
	}
	return kubeconfigPath, config, nil
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
