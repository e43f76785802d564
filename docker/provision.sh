#!/usr/bin/env bash
# Provisioning by script, through the GraphQL Management API (README: "Provisioning by script"):
#   1. a token for the bootstrap service account (BOOTSTRAP_CLIENT_ID / BOOTSTRAP_CLIENT_SECRET, organization owner);
#   2. its organization (`me`), then a tenant, a service account, a secret and a tenant role for that account;
#   3. a token AS the new service account, and a call of the tenant's AAS API with it (POST, GET, DELETE a shell).
# Re-running it reuses the tenant, the service account and its role; an existing account gets no new secret
# unless ROTATE_SECRET=1 (its secret was shown when it was created; the previous one then works for a day more).
#
# Needs bash, curl and jq. Environment:
#   ASSET_URL                 the server (default http://localhost:8080): GraphQL at {ASSET_URL}/graphql
#   MANAGE_URL                the identity service's base when apart (default ASSET_URL): {MANAGE_URL}/oidc/token
#   BOOTSTRAP_CLIENT_ID       required: the client id the server's first start was given
#   BOOTSTRAP_CLIENT_SECRET   required: its secret
#   TENANT                    the tenant's name, in its URL (default plant-1)
#   SERVICE_ACCOUNT           the service account's name (default {TENANT}-writer)
#   ROLE                      its role on the tenant: contributor (default) or reader
#   ORGANIZATION              the organization's name, when the bootstrap account owns several
#   ROTATE_SECRET=1           give an existing service account a new secret
#   WAIT_SECONDS              how long to wait for {ASSET_URL}/health/ready (default 120)
#
# Prints KEY=value lines on stdout (TENANT_URL, AAS_API, TOKEN_URL, CLIENT_ID and, once, CLIENT_SECRET);
# progress and errors go to stderr. Exits 1 on any refusal, with the server's words.
set -euo pipefail
shopt -s inherit_errexit

ASSET_URL="${ASSET_URL:-http://localhost:8080}"
ASSET_URL="${ASSET_URL%/}"
MANAGE_URL="${MANAGE_URL:-$ASSET_URL}"
MANAGE_URL="${MANAGE_URL%/}"
TENANT="${TENANT:-plant-1}"
SERVICE_ACCOUNT="${SERVICE_ACCOUNT:-$TENANT-writer}"
ROLE="${ROLE:-contributor}"
ORGANIZATION="${ORGANIZATION:-}"
ROTATE_SECRET="${ROTATE_SECRET:-0}"
WAIT_SECONDS="${WAIT_SECONDS:-120}"

log() { printf 'provision: %s\n' "$*" >&2; }
die() {
  printf 'provision: ERROR: %s\n' "$*" >&2
  exit 1
}

for tool in curl jq; do command -v "$tool" >/dev/null || die "$tool is required"; done
[ -n "${BOOTSTRAP_CLIENT_ID:-}" ] || die "set BOOTSTRAP_CLIENT_ID (and BOOTSTRAP_CLIENT_SECRET): the client the server's first start was given"
[ -n "${BOOTSTRAP_CLIENT_SECRET:-}" ] || die "set BOOTSTRAP_CLIENT_SECRET"

# request METHOD URL [curl options...]: sets STATUS and BODY.
request() {
  local method=$1 url=$2 out
  shift 2
  out=$(curl -sS -X "$method" -w '\n%{http_code}' "$@" "$url") || die "$method $url: no answer"
  STATUS=${out##*$'\n'}
  BODY=${out%$'\n'*}
}

# token CLIENT_ID CLIENT_SECRET: prints an access token (client credentials grant).
token() {
  request POST "$MANAGE_URL/oidc/token" \
    --data-urlencode grant_type=client_credentials --data-urlencode "client_id=$1" \
    --data-urlencode "client_secret=$2" --data-urlencode scope=api_access
  [ "$STATUS" = 200 ] || die "token request for client $1 refused ($STATUS): $BODY"
  jq -er .access_token <<<"$BODY"
}

# gql TOKEN QUERY [VARIABLES_JSON]: prints the answer's `data`; GraphQL errors are printed and end the script.
gql() {
  local vars=${3:-'{}'} payload
  payload=$(jq -nc --arg query "$2" --argjson variables "$vars" '{query: $query, variables: $variables}')
  request POST "$ASSET_URL/graphql" -H "authorization: Bearer $1" -H 'content-type: application/json' --data-binary "$payload"
  jq -e 'type == "object"' >/dev/null 2>&1 <<<"$BODY" || die "GraphQL answered $STATUS, not JSON: $BODY"
  if jq -e '(.errors // []) | length > 0' >/dev/null <<<"$BODY"; then
    printf 'provision: ERROR: GraphQL refused (HTTP %s):\n' "$STATUS" >&2
    jq -r '.errors[] | "  \(.extensions.code // "ERROR"): \(.message)\(if .path then " (at \(.path | map(tostring) | join(".")))" else "" end)"' <<<"$BODY" >&2
    exit 1
  fi
  [ "$STATUS" = 200 ] || die "GraphQL answered $STATUS: $BODY"
  jq -c .data <<<"$BODY"
}

# items TOKEN QUERY VARIABLES_JSON FIELD: every item of data.FIELD.result over all pages, one JSON object a line.
items() {
  local cursor=null data
  while :; do
    data=$(gql "$1" "$2" "$(jq -c --argjson cursor "$cursor" '. + {cursor: $cursor}' <<<"$3")")
    jq -c --arg f "$4" '.[$f].result[]' <<<"$data"
    cursor=$(jq -c --arg f "$4" '.[$f].pagingMetadata.cursor // null' <<<"$data")
    if [ "$cursor" = null ]; then break; fi
  done
}

# --- 0. the server is up ------------------------------------------------------------------------------------------
deadline=$((SECONDS + WAIT_SECONDS))
until curl -fsS -o /dev/null "$ASSET_URL/health/ready" 2>/dev/null; do
  [ "$SECONDS" -lt "$deadline" ] || die "$ASSET_URL/health/ready did not answer in ${WAIT_SECONDS}s"
  sleep 2
done

# --- 1. the bootstrap service account's token and organization -----------------------------------------------------
admin=$(token "$BOOTSTRAP_CLIENT_ID" "$BOOTSTRAP_CLIENT_SECRET")
me=$(gql "$admin" 'query { me { organizations { id name roles { role } } } }')
owned=$(jq -c --arg name "$ORGANIZATION" \
  '[.me.organizations[] | select(any(.roles[]; .role == "organization-owner")) | select($name == "" or .name == $name)]' <<<"$me")
case $(jq length <<<"$owned") in
  1) ;;
  0) die "client $BOOTSTRAP_CLIENT_ID owns no organization${ORGANIZATION:+ named $ORGANIZATION}" ;;
  *) die "client $BOOTSTRAP_CLIENT_ID owns several organizations ($(jq -r 'map(.name) | join(", ")' <<<"$owned")): set ORGANIZATION" ;;
esac
org_id=$(jq -r '.[0].id' <<<"$owned")
log "organization $(jq -r '.[0].name' <<<"$owned") ($org_id)"

# --- 2. the tenant ---------------------------------------------------------------------------------------------------
tenant=$(items "$admin" 'query ($org: ID!, $cursor: String) {
    tenants(organizationId: $org, limit: 250, cursor: $cursor) { result { id name url } pagingMetadata { cursor } } }' \
  "$(jq -nc --arg org "$org_id" '{org: $org}')" tenants | jq -sc --arg name "$TENANT" 'map(select(.name == $name)) | first // empty')
if [ -n "$tenant" ]; then
  log "tenant $TENANT exists; reusing it"
else
  tenant=$(gql "$admin" 'mutation ($org: ID!, $input: TenantInput!) {
      createTenant(organizationId: $org, input: $input) { id name url } }' \
    "$(jq -nc --arg org "$org_id" --arg name "$TENANT" '{org: $org, input: {name: $name}}')" | jq -c .createTenant)
  log "tenant $TENANT created"
fi
tenant_id=$(jq -r .id <<<"$tenant")
tenant_url=$(jq -r .url <<<"$tenant")

# --- 3. the service account ------------------------------------------------------------------------------------------
account=$(items "$admin" 'query ($org: ID!, $cursor: String) {
    serviceAccounts(organizationId: $org, limit: 250, cursor: $cursor) { result { id clientId name tokenUrl } pagingMetadata { cursor } } }' \
  "$(jq -nc --arg org "$org_id" '{org: $org}')" serviceAccounts | jq -sc --arg name "$SERVICE_ACCOUNT" 'map(select(.name == $name)) | first // empty')
if [ -n "$account" ]; then
  new_account=0
  log "service account $SERVICE_ACCOUNT exists; reusing it"
else
  new_account=1
  account=$(gql "$admin" 'mutation ($org: ID!, $input: ServiceAccountInput!) {
      createServiceAccount(organizationId: $org, input: $input) { id clientId name tokenUrl } }' \
    "$(jq -nc --arg org "$org_id" --arg name "$SERVICE_ACCOUNT" --arg tenant "$TENANT" \
      '{org: $org, input: {name: $name, description: "Provisioned by docker/provision.sh for tenant \($tenant)."}}')" | jq -c .createServiceAccount)
  log "service account $SERVICE_ACCOUNT created"
fi
account_id=$(jq -r .id <<<"$account")
client_id=$(jq -r .clientId <<<"$account")
token_url=$(jq -r .tokenUrl <<<"$account")

# --- 4. its role on the tenant ---------------------------------------------------------------------------------------
assigned=$(items "$admin" 'query ($org: ID!, $tenant: ID!, $cursor: String) {
    tenantRoleAssignments(organizationId: $org, tenantId: $tenant, limit: 250, cursor: $cursor) {
      result { id role principalType principalId } pagingMetadata { cursor } } }' \
  "$(jq -nc --arg org "$org_id" --arg tenant "$tenant_id" '{org: $org, tenant: $tenant}')" tenantRoleAssignments |
  jq -sc --arg id "$account_id" --arg role "$ROLE" \
    'map(select(.principalType == "service-account" and .principalId == $id and .role == $role)) | first // empty')
if [ -n "$assigned" ]; then
  log "service account $SERVICE_ACCOUNT is $ROLE on tenant $TENANT already"
else
  gql "$admin" 'mutation ($org: ID!, $tenant: ID!, $input: RoleAssignmentInput!) {
      createTenantRoleAssignment(organizationId: $org, tenantId: $tenant, input: $input) { id role } }' \
    "$(jq -nc --arg org "$org_id" --arg tenant "$tenant_id" --arg role "$ROLE" --arg id "$account_id" \
      '{org: $org, tenant: $tenant, input: {role: $role, principalType: "service-account", principalId: $id}}')" >/dev/null
  log "service account $SERVICE_ACCOUNT is now $ROLE on tenant $TENANT"
fi

# --- 5. a secret (its value is in this answer only) --------------------------------------------------------------------
client_secret=""
secret_vars=$(jq -nc --arg org "$org_id" --arg id "$account_id" '{org: $org, id: $id, input: {description: "provision.sh"}}')
if [ "$new_account" = 1 ]; then
  client_secret=$(gql "$admin" 'mutation ($org: ID!, $id: ID!, $input: ServiceAccountSecretInput!) {
      addServiceAccountSecret(organizationId: $org, serviceAccountId: $id, input: $input) { value } }' "$secret_vars" |
    jq -r .addServiceAccountSecret.value)
elif [ "$ROTATE_SECRET" = 1 ]; then
  client_secret=$(gql "$admin" 'mutation ($org: ID!, $id: ID!, $input: ServiceAccountSecretRotation!) {
      rotateServiceAccountSecret(organizationId: $org, serviceAccountId: $id, input: $input) { value } }' "$secret_vars" |
    jq -r .rotateServiceAccountSecret.value)
  log "service account $SERVICE_ACCOUNT has a new secret; the previous one works for one more day"
else
  log "service account $SERVICE_ACCOUNT keeps its secret (shown when it was created); ROTATE_SECRET=1 gives it a new one"
fi

# --- 6. the tenant API, as the new service account ---------------------------------------------------------------------
# The tenant URL is what clients use (PUBLIC_URL); from here the tenant is reached through ASSET_URL.
case $tenant_url in
  */tenants/"$TENANT") api="$ASSET_URL/tenants/$TENANT/api/v3.0" ;;
  *) api="$tenant_url/api/v3.0" ;;
esac
if [ -n "$client_secret" ]; then
  caller="service account $SERVICE_ACCOUNT"
  bearer=$(token "$client_id" "$client_secret")
  shell_id="urn:example:provision-check:$(date +%s)-$RANDOM"
  shell=$(jq -nc --arg id "$shell_id" \
    '{modelType: "AssetAdministrationShell", id: $id, idShort: "ProvisionCheck", assetInformation: {assetKind: "Instance", globalAssetId: "\($id)#asset"}}')
  request POST "$api/shells" -H "authorization: Bearer $bearer" -H 'content-type: application/json' --data-binary "$shell"
  [ "$STATUS" = 201 ] || die "POST $api/shells as $caller answered $STATUS: $BODY"
  request GET "$api/shells" -H "authorization: Bearer $bearer"
  [ "$STATUS" = 200 ] || die "GET $api/shells as $caller answered $STATUS: $BODY"
  jq -e --arg id "$shell_id" 'any(.result[]; .id == $id)' >/dev/null <<<"$BODY" || die "GET $api/shells does not list the shell just created: $BODY"
  encoded=$(printf %s "$shell_id" | base64 | tr '+/' '-_' | tr -d '=\n')
  request DELETE "$api/shells/$encoded" -H "authorization: Bearer $bearer"
  [ "$STATUS" = 204 ] || die "DELETE $api/shells/$encoded as $caller answered $STATUS: $BODY"
  log "tenant API works for $caller: POST, GET and DELETE $api/shells"
else
  request GET "$api/shells" -H "authorization: Bearer $admin"
  [ "$STATUS" = 200 ] || die "GET $api/shells answered $STATUS: $BODY"
  log "tenant API answers: GET $api/shells"
fi

# --- what to keep ----------------------------------------------------------------------------------------------------
printf 'TENANT=%s\nTENANT_ID=%s\nTENANT_URL=%s\nAAS_API=%s/api/v3.0\nTOKEN_URL=%s\nCLIENT_ID=%s\n' \
  "$TENANT" "$tenant_id" "$tenant_url" "$tenant_url" "$token_url" "$client_id"
if [ -n "$client_secret" ]; then
  printf 'CLIENT_SECRET=%s\n' "$client_secret"
  log "CLIENT_SECRET is shown this once (only its hash is kept): store it now"
fi
