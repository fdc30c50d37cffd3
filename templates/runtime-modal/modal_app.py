"""Serves the runtime on Modal.

Why a Python file in a TypeScript project: Modal describes and deploys apps in Python only. The
runtime itself stays the same Node.js app every other starter ships; this file tells Modal to
build the project's Dockerfile and to route HTTPS traffic to the Node server it starts inside.

    modal secret create runtime-secrets DATABASE_URL=postgres://... OPENAI_API_KEY=... \
        OS_SECURITY_KEY=$(openssl rand -hex 32)
    modal deploy modal_app.py      # run from the project root: the Dockerfile's build context
"""

import os
import subprocess

import modal

PORT = 7777

# add_python: the node:20-slim image has no Python, which Modal needs inside every container
# to run this function. The Dockerfile's CMD is not used; serve() below starts Node instead.
image = modal.Image.from_dockerfile("Dockerfile", add_python="3.12")

app = modal.App("runtime-starter", image=image)


@app.function(
    # DATABASE_URL must point at an external PostgreSQL (Neon, Supabase, RDS...): Modal
    # containers are replaced often and keep nothing on their own disk.
    secrets=[modal.Secret.from_name("runtime-secrets")],
    # One warm container so runs do not wait for a cold start; raise max_containers once
    # DATABASE_URL is PostgreSQL (SQLite could not be shared between them anyway).
    min_containers=1,
    max_containers=1,
    # Agent runs can stream for minutes.
    timeout=3600,
)
@modal.concurrent(max_inputs=100)
@modal.web_server(PORT, startup_timeout=60)
def serve() -> None:
    # web_server waits until something listens on PORT, then sends it the requests.
    subprocess.Popen(
        ["node", "dist/main.js"],
        cwd="/app",
        env={**os.environ, "HOST": "0.0.0.0", "PORT": str(PORT)},
    )
