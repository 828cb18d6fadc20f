// kafkajs against a kafgo broker: admin, an idempotent gzip producer with
// keys and headers, a consumer group that commits, and a second member of
// the same group that must find nothing left. Prints one line per fact for
// kafkajs_test.go to check; any failure exits non-zero.
//
// usage: node roundtrip.js <bootstrap> <topic> <group>
'use strict'
const { Kafka, CompressionTypes, logLevel } = require('kafkajs')

const [bootstrap, topic, group] = process.argv.slice(2)
const total = 300
const kafka = new Kafka({
  clientId: 'kafgo-e2e',
  brokers: [bootstrap],
  logLevel: logLevel.ERROR,
  retry: { retries: 10 },
})

// consumeAll runs one group member until want messages arrived (or, with
// want 0, for idleMs) and returns what it saw; the group commits as it goes.
async function consumeAll (want, idleMs) {
  const consumer = kafka.consumer({ groupId: group, sessionTimeout: 10000, heartbeatInterval: 500 })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  const seen = []
  let done
  const finished = new Promise(resolve => { done = resolve })
  let timer = setTimeout(done, idleMs)
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      seen.push({ partition, key: message.key.toString(), value: message.value.toString(), trace: message.headers.trace && message.headers.trace.toString() })
      if (want > 0 && seen.length >= want) {
        done()
      } else {
        clearTimeout(timer)
        timer = setTimeout(done, idleMs)
      }
    },
  })
  await finished
  clearTimeout(timer)
  await consumer.disconnect() // commits the resolved offsets, leaves the group
  return seen
}

async function main () {
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true })
  const listed = (await admin.listTopics()).filter(t => t === topic)
  console.log('topics', JSON.stringify(listed))

  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
  await producer.connect()
  for (let i = 0; i < total; i += 50) {
    const messages = []
    for (let j = i; j < i + 50; j++) {
      messages.push({ key: 'k' + (j % 7), value: 'v' + j, headers: { trace: 't' + j } })
    }
    await producer.send({ topic, acks: -1, compression: CompressionTypes.GZIP, messages })
  }
  await producer.disconnect()
  const ends = await admin.fetchTopicOffsets(topic)
  console.log('end offsets sum', ends.reduce((s, p) => s + Number(p.high), 0))

  const seen = await consumeAll(total, 15000)
  const values = new Set(seen.map(m => m.value))
  console.log('consumed', seen.length, 'distinct', values.size)
  // Same key, same partition.
  const keyParts = {}
  let split = 0
  let badHeader = 0
  for (const m of seen) {
    if (keyParts[m.key] !== undefined && keyParts[m.key] !== m.partition) split++
    keyParts[m.key] = m.partition
    if (m.trace !== 't' + m.value.slice(1)) badHeader++
  }
  console.log('keys split across partitions', split)
  console.log('bad headers', badHeader)

  const committed = await admin.fetchOffsets({ groupId: group, topics: [topic] })
  const sum = committed[0].partitions.reduce((s, p) => s + Number(p.offset), 0)
  console.log('committed sum', sum)

  const again = await consumeAll(0, 3000)
  console.log('second member consumed', again.length)
  const described = await admin.describeGroups([group])
  console.log('group state', described.groups[0].state)
  await admin.disconnect()
}

main().catch(err => {
  console.error('kafkajs failed:', err)
  process.exit(1)
})
