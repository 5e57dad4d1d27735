# The flotilla-operator image that config/default names (ghcr.io/flotilla-io/flotilla-operator).
#   docker build -t ghcr.io/flotilla-io/flotilla-operator:0.1.0 .
# Stage 1 builds the operator alone (no tests, no sim) on Debian 12 with Boost 1.81; stage 2 is
# Debian 12 slim with only the shared libraries it links, running as an unprivileged user.
# `make image` (scripts/build-image.sh) builds the same image without a container daemon; keep the
# runtime packages below in step with what that script copies (ldd's list, sleep, the CA bundle).
FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      cmake ninja-build g++ pkg-config \
      libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev \
      libssl-dev libyaml-cpp-dev libspdlog-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLOTILLA_TESTS=OFF \
 && cmake --build /build --target flotilla-operator \
 && strip /build/operator/flotilla-operator

FROM debian:12-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates libssl3 libyaml-cpp0.7 libspdlog1.10 libfmt9 \
      libboost-json1.81.0 libboost-url1.81.0 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /build/operator/flotilla-operator /usr/local/bin/flotilla-operator
# The same numeric user as the Deployment's securityContext (runAsNonRoot needs a number).
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/flotilla-operator"]
