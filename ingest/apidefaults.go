package ingest

import (
	"github.com/distribution/reference"
	corev1 "k8s.io/api/core/v1"
)

// API defaulting of a pod template, as the API server applies it when it
// stores a Deployment, DaemonSet or StatefulSet (k8s.io/kubernetes
// pkg/apis/core/v1 defaults, the generated defaulters of apps/v1 included):
// what a template read from a manifest needs before it is hashed the way
// the controllers hash the stored one. It covers the pod spec, its
// containers (regular, init and ephemeral), their probes, lifecycle hooks,
// ports, environment and resources, and every volume source the
// defaulters touch. Defaults only fill unset fields: a stored template is
// left as it is.

// defaultTemplate applies the API server's defaults to t.
func defaultTemplate(t *corev1.PodTemplateSpec) {
	s := &t.Spec
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	if s.TerminationGracePeriodSeconds == nil {
		period := int64(corev1.DefaultTerminationGracePeriodSeconds)
		s.TerminationGracePeriodSeconds = &period
	}
	if s.SchedulerName == "" {
		s.SchedulerName = corev1.DefaultSchedulerName
	}
	for i := range s.Volumes {
		defaultVolume(&s.Volumes[i])
	}
	for i := range s.InitContainers {
		defaultContainer(&s.InitContainers[i])
	}
	for i := range s.Containers {
		defaultContainer(&s.Containers[i])
	}
	for i := range s.EphemeralContainers {
		defaultContainer((*corev1.Container)(&s.EphemeralContainers[i].EphemeralContainerCommon))
	}
	roundUpMilli(s.Overhead)
	if s.Resources != nil {
		roundUpMilli(s.Resources.Limits)
		roundUpMilli(s.Resources.Requests)
	}
}

// roundUpMilli rounds quantities up to a thousandth (SetDefaults_ResourceList).
func roundUpMilli(l corev1.ResourceList) {
	for k, v := range l {
		v.RoundUp(-3)
		l[k] = v
	}
}

func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = corev1.PullIfNotPresent
		if imageTag(c.Image) == "latest" {
			c.ImagePullPolicy = corev1.PullAlways
		}
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		if vf := c.Env[i].ValueFrom; vf != nil {
			if vf.FieldRef != nil && vf.FieldRef.APIVersion == "" {
				vf.FieldRef.APIVersion = "v1"
			}
			if vf.FileKeyRef != nil && vf.FileKeyRef.Optional == nil {
				f := false
				vf.FileKeyRef.Optional = &f
			}
		}
	}
	roundUpMilli(c.Resources.Limits)
	roundUpMilli(c.Resources.Requests)
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if p == nil {
			continue
		}
		if p.TimeoutSeconds == 0 {
			p.TimeoutSeconds = 1
		}
		if p.PeriodSeconds == 0 {
			p.PeriodSeconds = 10
		}
		if p.SuccessThreshold == 0 {
			p.SuccessThreshold = 1
		}
		if p.FailureThreshold == 0 {
			p.FailureThreshold = 3
		}
		defaultHTTPGet(p.HTTPGet)
		if p.GRPC != nil && p.GRPC.Service == nil {
			empty := ""
			p.GRPC.Service = &empty
		}
	}
	if l := c.Lifecycle; l != nil {
		if l.PostStart != nil {
			defaultHTTPGet(l.PostStart.HTTPGet)
		}
		if l.PreStop != nil {
			defaultHTTPGet(l.PreStop.HTTPGet)
		}
	}
}

func defaultHTTPGet(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

// imageTag is the tag ParseImageName finds: the image's tag, "latest"
// when it has neither tag nor digest, "" when it does not parse.
func imageTag(image string) string {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return ""
	}
	tag := ""
	if t, ok := named.(reference.Tagged); ok {
		tag = t.Tag()
	}
	if _, ok := named.(reference.Digested); !ok && tag == "" {
		tag = "latest"
	}
	return tag
}

func defaultVolume(v *corev1.Volume) {
	s := &v.VolumeSource
	if (*s == corev1.VolumeSource{}) {
		s.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	if s.HostPath != nil && s.HostPath.Type == nil {
		unset := corev1.HostPathUnset
		s.HostPath.Type = &unset
	}
	if s.Secret != nil && s.Secret.DefaultMode == nil {
		mode := int32(corev1.SecretVolumeSourceDefaultMode)
		s.Secret.DefaultMode = &mode
	}
	if s.ConfigMap != nil && s.ConfigMap.DefaultMode == nil {
		mode := int32(corev1.ConfigMapVolumeSourceDefaultMode)
		s.ConfigMap.DefaultMode = &mode
	}
	if d := s.DownwardAPI; d != nil {
		if d.DefaultMode == nil {
			mode := int32(corev1.DownwardAPIVolumeSourceDefaultMode)
			d.DefaultMode = &mode
		}
		defaultDownwardItems(d.Items)
	}
	if p := s.Projected; p != nil {
		if p.DefaultMode == nil {
			mode := int32(corev1.ProjectedVolumeSourceDefaultMode)
			p.DefaultMode = &mode
		}
		for i := range p.Sources {
			if d := p.Sources[i].DownwardAPI; d != nil {
				defaultDownwardItems(d.Items)
			}
			if t := p.Sources[i].ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
				hour := int64(3600)
				t.ExpirationSeconds = &hour
			}
		}
	}
	if s.ISCSI != nil && s.ISCSI.ISCSIInterface == "" {
		s.ISCSI.ISCSIInterface = "default"
	}
	if r := s.RBD; r != nil {
		if r.RBDPool == "" {
			r.RBDPool = "rbd"
		}
		if r.RadosUser == "" {
			r.RadosUser = "admin"
		}
		if r.Keyring == "" {
			r.Keyring = "/etc/ceph/keyring"
		}
	}
	if a := s.AzureDisk; a != nil {
		if a.CachingMode == nil {
			m := corev1.AzureDataDiskCachingReadWrite
			a.CachingMode = &m
		}
		if a.FSType == nil {
			fs := "ext4"
			a.FSType = &fs
		}
		if a.ReadOnly == nil {
			ro := false
			a.ReadOnly = &ro
		}
		if a.Kind == nil {
			k := corev1.AzureSharedBlobDisk
			a.Kind = &k
		}
	}
	if sc := s.ScaleIO; sc != nil {
		if sc.StorageMode == "" {
			sc.StorageMode = "ThinProvisioned"
		}
		if sc.FSType == "" {
			sc.FSType = "xfs"
		}
	}
	if e := s.Ephemeral; e != nil && e.VolumeClaimTemplate != nil {
		spec := &e.VolumeClaimTemplate.Spec
		if spec.VolumeMode == nil {
			fs := corev1.PersistentVolumeFilesystem
			spec.VolumeMode = &fs
		}
		roundUpMilli(spec.Resources.Limits)
		roundUpMilli(spec.Resources.Requests)
	}
}

func defaultDownwardItems(items []corev1.DownwardAPIVolumeFile) {
	for i := range items {
		if f := items[i].FieldRef; f != nil && f.APIVersion == "" {
			f.APIVersion = "v1"
		}
	}
}
