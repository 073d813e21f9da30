-- expect-error: unknown category
-- expect-line: 3
function on_start() units(0, {category = 'spaceship'}) end
