// English strings of the Records page, loaded with records.js only. Same keys as
// records-zh-CN.js (a test checks).
export default {
  'records.title': 'Records',
  'records.intro': 'Every settled ask with its answers, newest first.',
  'records.session': 'Session',
  'records.session.all': 'All sessions',
  'records.kind': 'Kind',
  'records.kind.all': 'All kinds',
  'records.from': 'From',
  'records.to': 'To',
  'records.search': 'Search',
  'records.search.placeholder': 'Text in the question or the answers',
  'records.export': 'Export JSON',
  'records.more': 'Load more',
  'records.none': 'No records match these filters.',
  'records.count': '{n} shown',
  'records.countMore': '{n} shown · more below',
  'records.open': 'Open',
  'records.surface': 'answered in {surface}',
  'records.answers.none': 'No answers (settled as {outcome}).',
  'records.exporting': 'Exporting…',
};
