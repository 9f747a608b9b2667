-- Argo CD health check for glooha.io/GlooHA and glooha.io/KgatewayHA, the same script under both keys
-- (resource.customizations.health.glooha.io_GlooHA, resource.customizations.health.glooha.io_KgatewayHA).
-- It reads their status the way kstatus (Flux, kpt) does, and adds Argo CD's Suspended:
--   no status for this generation yet        -> Progressing (operator down, or not watching the namespace)
--   Stalled=True                              -> Degraded    (only a person can fix it; the message says what)
--   spec.suspend: true                        -> Suspended
--   Reconciling=True                          -> Progressing
--   Ready=False and Degraded=True             -> Degraded    (the product leaderless past its failover bound)
--   Ready=False                               -> Progressing
--   Degraded=True                             -> Degraded    (a component without ready pods, the product's leader lost)
--   Ready=True                                -> Healthy
-- Argo CD runs user scripts without Lua's string library: only base, table and package are used.
local hs = {}
local kind = obj.kind or "object"

local function condition(conditionType)
  if obj.status == nil or obj.status.conditions == nil then
    return nil
  end
  for _, c in ipairs(obj.status.conditions) do
    if c.type == conditionType then
      return c
    end
  end
  return nil
end

local function describe(c)
  if c.message ~= nil and c.message ~= "" then
    return c.reason .. ": " .. c.message
  end
  return c.reason
end

if obj.metadata.deletionTimestamp ~= nil then
  hs.status = "Progressing"
  hs.message = "being deleted: glooha-operator hands the install back to Helm, then removes its finalizer"
  return hs
end

local generation = obj.metadata.generation or 0
local observed = 0
if obj.status ~= nil and obj.status.observedGeneration ~= nil then
  observed = obj.status.observedGeneration
end
if observed < generation then
  hs.status = "Progressing"
  if observed == 0 then
    hs.message = "waiting for glooha-operator to reconcile this " .. kind .. ": is it running, and does it watch this namespace?"
  else
    hs.message = "waiting for glooha-operator to observe generation " .. generation .. " (status is for " .. observed .. ")"
  end
  return hs
end

local stalled = condition("Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = describe(stalled)
  return hs
end

if obj.spec ~= nil and obj.spec.suspend == true then
  hs.status = "Suspended"
  local reconciling = condition("Reconciling")
  if reconciling ~= nil then
    hs.message = reconciling.message
  else
    hs.message = "spec.suspend is true"
  end
  return hs
end

local reconciling = condition("Reconciling")
if reconciling ~= nil and reconciling.status == "True" then
  hs.status = "Progressing"
  hs.message = describe(reconciling)
  return hs
end

local ready = condition("Ready")
if ready == nil then
  hs.status = "Progressing"
  hs.message = "no Ready condition yet"
  return hs
end
local degraded = condition("Degraded")
if ready.status ~= "True" then
  -- Not converging (Reconciling is not True) and something is wrong: waiting will not make it Ready.
  if degraded ~= nil and degraded.status == "True" then
    hs.status = "Degraded"
  else
    hs.status = "Progressing"
  end
  hs.message = describe(ready)
  return hs
end

if degraded ~= nil and degraded.status == "True" then
  hs.status = "Degraded"
  hs.message = describe(degraded)
  return hs
end

hs.status = "Healthy"
hs.message = ready.message
return hs
