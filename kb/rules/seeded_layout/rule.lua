-- seeded_layout: at the start one of `layouts` is drawn (seeded: each seed may play another layout)
-- and set up: its units are spawned and its controllers replace the listed teams' controllers.
-- A layout is {name=, units={{team=, type=, count=, x=, y= | at=, tag=}, ...},
-- controllers={{team=, controller={...}}, ...}}; mirrored starts, which corner an ally holds, where
-- a target stands among candidate sites or which rival is aggressive are all layouts.
-- With `pick` the layout is that one (1-based) instead of a draw (a fixed drill or a test).
-- Params: layouts, pick, announce, team.

-- Helpers from the engine's rule library (engine/rules/rule_lib.lua).
local point, label, list = lib.point, lib.label, lib.list

local function place(entry)
  local x, y = point(entry.at)
  if x == nil then x, y = point({entry.x, entry.y}) end
  if x == nil then return 0 end
  local kind = tostring(entry.type or "light_bot")
  local n = math.max(1, math.floor(tonumber(entry.count) or 1))
  local tag = entry.tag
  if tag ~= nil then tag = tostring(tag) end
  return #spawn(math.floor(tonumber(entry.team) or 1), kind, x, y, n, tag)
end

function on_start()
  local layouts = list(param("layouts", {}))
  if #layouts == 0 then
    log("layout_skipped", {why = "no layouts"})
    return
  end
  local pick = math.floor(tonumber(param("pick", 0)) or 0)
  local k = pick
  if k < 1 or k > #layouts then k = math.min(#layouts, 1 + math.floor(random() * #layouts)) end
  local layout = layouts[k]
  local spawned, skipped = 0, 0
  for _, entry in ipairs(list(layout.units)) do
    local n = place(entry)
    spawned = spawned + n
    if n == 0 then skipped = skipped + 1 end
  end
  local controlled = 0
  for _, c in ipairs(list(layout.controllers)) do
    if type(c.controller) == "table" then
      set_controller(math.floor(tonumber(c.team) or 1), c.controller)
      controlled = controlled + 1
    end
  end
  local name = tostring(layout.name or ("layout " .. k))
  log("layout", {index = k, of = #layouts, name = name, units = spawned, skipped = skipped,
                 controllers = controlled})
  if param("announce", false) == true then
    local team = param("team", nil)
    if team ~= nil then team = math.floor(tonumber(team) or 0) end
    message(tostring(layout.message or name), team)
  end
end
