# Shared by the image scripts (sourced): one container storage for buildah and podman, per machine.
#
# vfs + chroot isolation work as root on a machine without a Docker engine, inside a container, and
# without overlayfs or user namespaces. The storage lives under the same cache root as the test control
# plane, away from any system-wide /var/lib/containers a machine may already use with another driver.
image_cache=${GLOOHA_IMAGE_CACHE:-"$HOME/.cache/glooha-operator/image"}
storage=(--root "$image_cache/storage" --runroot "${XDG_RUNTIME_DIR:-/run}/glooha-operator-containers" --storage-driver vfs)
export BUILDAH_ISOLATION=chroot
buildah() { command buildah "${storage[@]}" "$@"; }
# runc rather than crun: crun refuses the hybrid cgroup v1/v2 hierarchy some CI hosts (and containers
# running CI) have; cgroupfs because there is no systemd to delegate to.
podman() { command podman "${storage[@]}" --runtime runc --cgroup-manager cgroupfs "$@"; }
