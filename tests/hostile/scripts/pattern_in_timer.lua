-- expect-error: pattern too complex
-- expect-line: 6
function on_start()
  every(1, function()
    local s = string.rep("ab", 3000)
    s:match("(.-)(.-)(.-)(.-)z")
  end)
end
