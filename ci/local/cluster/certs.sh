# The node's certificates (sourced by ci/local/cluster.sh after lib.sh), made once per run dir:
#  - one CA: the apiserver's serving cert (SANs for 127.0.0.1, the node IP and the kubernetes Service, so
#    pods verify it) and the apiserver's client cert for the kubelet (logs, exec, metrics; system:masters)
#  - a front-proxy CA and client: the apiserver proxies the metrics.k8s.io API to metrics-server with it
# shellcheck shell=bash

certs_up() {
  local d=$RUN/certs
  [ -f "$d/front-proxy-client.crt" ] || (
    mkdir -p "$d" && cd "$d" || exit 1; umask 077
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 -subj /CN=newsfeed-node-ca 2>/dev/null
    openssl req -x509 -newkey rsa:2048 -nodes -keyout front-proxy-ca.key -out front-proxy-ca.crt -days 3650 \
      -subj /CN=newsfeed-front-proxy-ca 2>/dev/null
    sign() { # sign NAME CA SUBJECT EXTENSIONS
      openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$3" 2>/dev/null
      printf '%s\n' "$4" > "$1.ext"
      openssl x509 -req -in "$1.csr" -CA "$2.crt" -CAkey "$2.key" -CAcreateserial -days 3650 -extfile "$1.ext" \
        -out "$1.crt" 2>/dev/null
      rm -f "$1.csr" "$1.ext"
    }
    sign apiserver ca /CN=kube-apiserver "subjectAltName=IP:127.0.0.1,IP:$NODE_IP,IP:$API_SERVICE_IP,DNS:localhost,\
DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
extendedKeyUsage=serverAuth"
    sign kubelet-client ca "/O=system:masters/CN=kube-apiserver-kubelet-client" "extendedKeyUsage=clientAuth"
    sign front-proxy-client front-proxy-ca /CN=front-proxy-client "extendedKeyUsage=clientAuth"
  )
  # ci/local/control-plane.sh serves a pre-made pair from its cert dir; the chain lets its kubeconfig trust it
  mkdir -p "$CP_RUN/certs"
  cat "$d/apiserver.crt" "$d/ca.crt" > "$CP_RUN/certs/apiserver.crt"
  cp "$d/apiserver.key" "$CP_RUN/certs/apiserver.key"
}

# the kube-apiserver flags the node needs on top of ci/local/control-plane.sh's
apiserver_args() {
  local d=$RUN/certs
  # bound to 0.0.0.0 for pods (ci/local/cluster/net.sh drops it from outside); advertised on the node IP with the
  # lease reconciler, so the `kubernetes` Service has an endpoint pods can reach
  echo "--bind-address=0.0.0.0 --advertise-address=$NODE_IP --endpoint-reconciler-type=lease" \
    "--kubelet-preferred-address-types=InternalIP" \
    "--kubelet-client-certificate=$d/kubelet-client.crt --kubelet-client-key=$d/kubelet-client.key" \
    "--requestheader-client-ca-file=$d/front-proxy-ca.crt --requestheader-allowed-names=front-proxy-client" \
    "--requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group" \
    "--requestheader-extra-headers-prefix=X-Remote-Extra- --enable-aggregator-routing=true" \
    "--proxy-client-cert-file=$d/front-proxy-client.crt --proxy-client-key-file=$d/front-proxy-client.key"
}
