-- Create or overwrite a background task. KEYS[1] task value, KEYS[2] index set; ARGV[1] JSON value,
-- ARGV[2] task id.
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
return 1
