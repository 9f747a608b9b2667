{{/* Chart name, overridable with nameOverride. */}}
{{- define "glooha-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Full name prefix for objects: fullnameOverride, else the release name (with the chart name appended
unless the release name already contains it). Truncated to 63 characters (DNS label limit).
*/}}
{{- define "glooha-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "glooha-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels that never change for a release: the Deployment's selector, the PDB's and the Service's. */}}
{{- define "glooha-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "glooha-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "glooha-operator.labels" -}}
helm.sh/chart: {{ include "glooha-operator.chart" . }}
{{ include "glooha-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: operator
app.kubernetes.io/part-of: glooha
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "glooha-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "glooha-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "glooha-operator.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- if .Values.image.digest }}
{{- printf "%s:%s@%s" .Values.image.repository $tag .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}

{{/*
The permissions the operator needs in every namespace it reconciles (a ClusterRole's rules in cluster
mode, each watched namespace's Role in namespaced mode). Keep in step with README.md's RBAC table and
test/unit/chart/expected-rbac.ts, which the tests compare against.
*/}}
{{- define "glooha-operator.reconcilerRules" -}}
# The HA kinds it reconciles (patch: its finalizer, a merge patch of metadata.finalizers), their
# status, and their finalizers subresource for blockOwnerDeletion on the ownerReferences of what it
# owns; and what each product reads or writes besides (_products.tpl, generated from the registry).
{{ include "glooha-operator.products.rules" . }}
# The products' Deployments: server-side apply of replicas/env/affinity only (never created or deleted).
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list", "watch", "patch"]
# HPAs: bounds patched onto the product's own; one created (and pruned) for an autoscaled proxy that has none.
- apiGroups: ["autoscaling"]
  resources: ["horizontalpodautoscalers"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
# The PodDisruptionBudgets it owns.
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
# The Role/RoleBinding granting a product's ServiceAccount access to its leader Lease.
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
# The <name>-helm-values ConfigMap.
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
# The products' ServiceAccounts (read only: the subject of the Role it grants).
- apiGroups: [""]
  resources: ["serviceaccounts"]
  verbs: ["get", "list", "watch"]
# The product's controller pods (read only, by label selector): whether the holder of its leader
# Lease has ended (its kubelet's report), so that the Lease is handed over at once (docs/leader-election.md).
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch"]
{{ include "glooha-operator.eventRules" . }}
{{ include "glooha-operator.leaseRules" . }}
{{- end }}

{{/*
The reads of reconcilerRules: each rule that lists and watches, with its get/list/watch verbs only
(rbac.clusterWideReads grants these in all namespaces). Derived, so a kind added to reconcilerRules is
covered without a second list to keep.
*/}}
{{- define "glooha-operator.readRules" -}}
{{- range (include "glooha-operator.reconcilerRules" . | fromYamlArray) }}
{{- $verbs := list }}
{{- range .verbs }}
{{- if has . (list "get" "list" "watch") }}
{{- $verbs = append $verbs . }}
{{- end }}
{{- end }}
{{- if and (has "list" $verbs) (has "watch" $verbs) }}
- apiGroups: {{ toJson .apiGroups }}
  resources: {{ toJson .resources }}
  verbs: {{ toJson $verbs }}
{{- end }}
{{- end }}
{{- end }}

{{- define "glooha-operator.eventRules" -}}
# Events on the objects it reconciles.
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end }}

{{/*
Leases: its own leader election (release namespace), observing Gloo's `gloo` Lease, and holding the
permissions it grants Gloo's ServiceAccount (RBAC's escalation check lets a subject create a Role only
with permissions it holds itself, so no `escalate`/`bind` verbs are needed). No delete.
*/}}
{{- define "glooha-operator.leaseRules" -}}
# Leases: its own election, Gloo's `gloo` Lease, and what the Role it creates grants Gloo.
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
{{- end }}

{{/* The namespaces of namespaced mode, de-duplicated, in the order given. */}}
{{- define "glooha-operator.watchNamespaces" -}}
{{- $seen := list }}
{{- range .Values.watchNamespaces }}
{{- if not (has . $seen) }}
{{- $seen = append $seen . }}
{{- end }}
{{- end }}
{{- join "," $seen }}
{{- end }}

{{/* Fails rendering on value combinations the schema cannot express. */}}
{{- define "glooha-operator.validate" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not .Values.leaderElection.enabled) }}
{{- fail "replicaCount > 1 needs leaderElection.enabled=true: without it every replica would reconcile and they would fight over the same objects" }}
{{- end }}
{{- if and .Values.metrics.serviceMonitor.enabled (not .Values.metrics.service.enabled) }}
{{- fail "metrics.serviceMonitor.enabled needs metrics.service.enabled=true (the ServiceMonitor selects that Service)" }}
{{- end }}
{{- if .Values.leaderElection.enabled }}
{{- $lease := include "glooha-operator.millis" .Values.leaderElection.leaseDuration | int64 }}
{{- $renew := include "glooha-operator.millis" .Values.leaderElection.renewDeadline | int64 }}
{{- $retry := include "glooha-operator.millis" .Values.leaderElection.retryPeriod | int64 }}
{{- if le $lease $renew }}
{{- fail (printf "leaderElection.leaseDuration (%s) must be longer than leaderElection.renewDeadline (%s)" .Values.leaderElection.leaseDuration .Values.leaderElection.renewDeadline) }}
{{- end }}
{{- if le (mul $renew 10) (mul $retry 12) }}
{{- fail (printf "leaderElection.renewDeadline (%s) must be longer than 1.2 x leaderElection.retryPeriod (%s)" .Values.leaderElection.renewDeadline .Values.leaderElection.retryPeriod) }}
{{- end }}
{{- end }}
{{- end }}

{{/* Milliseconds in a one-unit duration such as 500ms, 15s, 2m or 1h (values.schema.json enforces the form). */}}
{{- define "glooha-operator.millis" -}}
{{- $n := regexFind "^[0-9]+" . | int64 }}
{{- $unit := trimPrefix (regexFind "^[0-9]+" .) . }}
{{- if eq $unit "ms" }}{{ $n }}
{{- else if eq $unit "s" }}{{ mul $n 1000 }}
{{- else if eq $unit "m" }}{{ mul $n 60000 }}
{{- else if eq $unit "h" }}{{ mul $n 3600000 }}
{{- else }}{{ fail (printf "cannot read the duration %q: use a whole number with one unit (ms, s, m, h)" .) }}
{{- end }}
{{- end }}
