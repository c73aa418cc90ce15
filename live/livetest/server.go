package livetest

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Token is the bearer token of the server's admin user (group
// system:masters).
const Token = "admin-token"

// Server is a running kube-apiserver and its etcd.
type Server struct {
	Dir        string // state, logs, certificates, kubeconfig
	URL        string // https://127.0.0.1:PORT
	Kubeconfig string
	AuditLog   string // JSON lines, one event per pods/binding or pods/eviction request
	CAFile     string
	etcd, api  *proc
}

// proc is a started process; done closes when it exits.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// auditPolicy logs who binds and evicts, nothing else.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  resources:
  - group: ""
    resources: ["pods/binding", "pods/eviction"]
- level: None
`

// Start starts etcd and kube-apiserver with state in dir (created) and
// waits until the API server is ready (about 5-15 s).
func Start(dir string) (*Server, error) {
	etcdBin, apiBin, err := Binaries()
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	pki := filepath.Join(dir, "pki")
	if err := os.MkdirAll(pki, 0o755); err != nil {
		return nil, err
	}
	if err := writePKI(pki); err != nil {
		return nil, fmt.Errorf("certificates: %w", err)
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, URL: "https://127.0.0.1:" + strconv.Itoa(ports[2]), Kubeconfig: filepath.Join(dir, "kubeconfig"),
		AuditLog: filepath.Join(dir, "audit.log"), CAFile: filepath.Join(pki, "ca.crt")}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peerURL := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	s.etcd, err = startLogged(filepath.Join(dir, "etcd.log"), etcdBin, "--name=test", "--data-dir="+filepath.Join(dir, "etcd-data"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=test="+peerURL, "--unsafe-no-fsync", "--log-level=warn")
	if err != nil {
		return nil, err
	}
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o644); err != nil {
		s.Stop()
		return nil, err
	}
	s.api, err = startLogged(filepath.Join(dir, "apiserver.log"), apiBin, "--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(ports[2]), "--advertise-address=127.0.0.1",
		"--tls-cert-file="+filepath.Join(pki, "apiserver.crt"), "--tls-private-key-file="+filepath.Join(pki, "apiserver.key"),
		"--client-ca-file="+s.CAFile, "--token-auth-file="+filepath.Join(pki, "tokens.csv"), "--authorization-mode=Node,RBAC",
		"--service-account-key-file="+filepath.Join(pki, "sa.pub"), "--service-account-signing-key-file="+filepath.Join(pki, "sa.key"),
		"--service-account-issuer=https://kubernetes.default.svc", "--service-cluster-ip-range=10.0.0.0/24",
		"--disable-admission-plugins=ServiceAccount", "--endpoint-reconciler-type=none", "--cert-dir="+filepath.Join(dir, "certs"),
		"--audit-policy-file="+policy, "--audit-log-path="+s.AuditLog, "--audit-log-format=json", "--audit-log-mode=blocking")
	if err != nil {
		s.Stop()
		return nil, err
	}
	if err := s.waitReady(90 * time.Second); err != nil {
		s.Stop()
		return nil, err
	}
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: %q, certificate-authority: %q}}]
users: [{name: admin, user: {token: %s}}]
contexts: [{name: test, context: {cluster: test, user: admin}}]
current-context: test
`, s.URL, s.CAFile, Token)
	if err := os.WriteFile(s.Kubeconfig, []byte(kc), 0o600); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// startLogged starts a process with its output in logPath; it is killed
// if the test binary dies.
func startLogged(logPath, bin string, args ...string) (*proc, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); log.Close(); close(p.done) }()
	return p, nil
}

// waitReady polls /readyz until it answers ok.
func (s *Server) waitReady(limit time.Duration) error {
	ca, err := os.ReadFile(s.CAFile)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-s.api.done:
			deadline = time.Now() // exited: give up
		default:
		}
		req, _ := http.NewRequestWithContext(context.Background(), "GET", s.URL+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+Token)
		if resp, err := hc.Do(req); err == nil {
			var b [16]byte
			n, _ := resp.Body.Read(b[:])
			resp.Body.Close()
			if resp.StatusCode == 200 && strings.TrimSpace(string(b[:n])) == "ok" {
				return nil
			}
		}
		time.Sleep(300 * time.Millisecond)
	}
	tail, _ := os.ReadFile(filepath.Join(s.Dir, "apiserver.log"))
	if len(tail) > 3000 {
		tail = tail[len(tail)-3000:]
	}
	return fmt.Errorf("kube-apiserver not ready after %s; its log ends:\n%s", limit, tail)
}

// Stop stops both processes (SIGTERM, then SIGKILL after 10 s) and
// removes the state directory.
func (s *Server) Stop() {
	for _, p := range []*proc{s.api, s.etcd} {
		if p == nil {
			continue
		}
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
		}
	}
	os.RemoveAll(s.Dir)
}

// freePorts finds n free loopback ports.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// writePKI writes the CA, the API server's certificate for 127.0.0.1 and
// localhost, the service-account key pair and the token file.
func writePKI(dir string) error {
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kplace-test-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(10, 0, 0), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	ca, _ := x509.ParseCertificate(caDER)
	srvKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	srvTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kube-apiserver"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(10, 0, 0), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames: []string{"localhost"}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, ca, &srvKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"ca.crt":        pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		"apiserver.crt": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER}),
		"apiserver.key": pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(srvKey)}),
		"sa.key":        pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(saKey)}),
		"sa.pub":        pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPub}),
		"tokens.csv":    []byte(Token + ",admin,admin,system:masters\n"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// AuditEvent is the part of an audit event the tests read.
type AuditEvent struct {
	Verb      string `json:"verb"`
	ObjectRef struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestReceived time.Time `json:"requestReceivedTimestamp"`
	StageTimestamp  time.Time `json:"stageTimestamp"`
	UserAgent       string    `json:"userAgent"`
}

// Audit reads the audit log: every pods/binding and pods/eviction request
// so far, in the order the server finished them.
func (s *Server) Audit() ([]AuditEvent, error) {
	f, err := os.Open(s.AuditLog)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []AuditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var e AuditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}
