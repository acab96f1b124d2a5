{{- define "capo.labels" -}}
app.kubernetes.io/name: capo-remediation
app.kubernetes.io/part-of: noderepair
{{- end }}
{{- define "capo.selector" -}}
app.kubernetes.io/name: capo-remediation
app.kubernetes.io/component: controller
{{- end }}
{{- define "capo.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}
