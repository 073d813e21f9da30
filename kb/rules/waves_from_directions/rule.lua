-- waves_from_directions: at each given time, one wave per named direction attacks simultaneously.
-- With `jitter` each direction's wave comes up to that many seconds late, drawn per direction and time
-- (seeded): which direction strikes first is not known in advance.
-- Params: team, directions, times, units, target_tag, target_team, target, tag, announce, jitter.

-- Helpers from the engine's rule library (engine/rules/rule_lib.lua).
local point, label, list = lib.point, lib.label, lib.list
local composition, target_position, spawn_groups = lib.composition, lib.target_position, lib.spawn_groups

local cfg

local function spawn_wave(index, dir, tx, ty)
  local x, y = point(dir)
  if x == nil then
    log("wave_skipped", {index = index, from = label(dir), why = "unknown direction"})
    return nil
  end
  local ids = spawn_groups(cfg.team, cfg.groups, x, y, cfg.tag)
  if #ids > 0 then order(ids, "fight", tx, ty) end
  mark(x, y, "wave " .. index .. ": " .. label(dir))
  log("wave", {index = index, from = label(dir), at = time(), count = #ids, x = x, y = y, tx = tx, ty = ty})
  return label(dir)
end

local function launch(index)
  local tx, ty = target_position(cfg.target_tag, cfg.target_team, cfg.target)
  local names = {}
  for _, dir in ipairs(cfg.directions) do
    local name = spawn_wave(index, dir, tx, ty)
    if name then names[#names + 1] = name end
  end
  if cfg.announce and #names > 0 then
    message("Wave " .. index .. " incoming from " .. table.concat(names, ", ") .. "!")
  end
end

-- With jitter: each direction's wave at its own drawn moment, announced as it comes.
local function launch_one(index, dir)
  local tx, ty = target_position(cfg.target_tag, cfg.target_team, cfg.target)
  local name = spawn_wave(index, dir, tx, ty)
  if cfg.announce and name then message("Wave " .. index .. " incoming from " .. name .. "!") end
end

function on_start()
  cfg = {
    team = math.floor(tonumber(param("team", 1)) or 1),
    directions = list(param("directions", {"north", "east"})),
    times = list(param("times", {60})),
    groups = composition(param("units", {light_bot = 4})),
    target_tag = param("target_tag", nil),
    target_team = math.floor(tonumber(param("target_team", 0)) or 0),
    target = param("target", nil),
    tag = tostring(param("tag", "wave")),
    announce = param("announce", true) ~= false,
    jitter = math.max(0, tonumber(param("jitter", 0)) or 0),
  }
  local names = {}
  for _, dir in ipairs(cfg.directions) do names[#names + 1] = label(dir) end
  for i, t in ipairs(cfg.times) do
    local when = tonumber(t)
    if when and when >= 0 and cfg.jitter > 0 then
      for _, dir in ipairs(cfg.directions) do
        at(when + random() * cfg.jitter, function() launch_one(i, dir) end)
      end
    elseif when and when >= 0 then
      at(when, function() launch(i) end)
    else
      log("wave_skipped", {index = i, why = "bad time " .. tostring(t)})
    end
  end
  log("waves_planned", {waves = #cfg.times, directions = table.concat(names, ","), team = cfg.team,
                        jitter = cfg.jitter})
end
