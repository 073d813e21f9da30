-- expect-error: unknown team 16
-- expect-line: 4
function on_start()
  transfer_resources(0, ENVIRONMENT, 1, 1)
end
