-- expect-error: table.concat: result longer
-- expect-line: 3
function on_start() local t = {} for i = 1, 300000 do t[i] = 'abcdefgh' end local r = table.concat(t) end
