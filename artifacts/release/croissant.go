package release

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// CroissantConformsTo is the Croissant version the metadata conforms to.
const CroissantConformsTo = "http://mlcommons.org/croissant/1.0"

// croissantContext is Croissant 1.0's JSON-LD context (the spec's
// recommended one, with the RAI vocabulary), inline so that no processor
// needs the network.
const croissantContext = `{
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform"
  }`

// Croissant is the metadata document, fields in a stable order.
type Croissant struct {
	Context       json.RawMessage       `json:"@context"`
	Type          string                `json:"@type"`
	Name          string                `json:"name"`
	Description   string                `json:"description"`
	ConformsTo    string                `json:"conformsTo"`
	Version       string                `json:"version"`
	DatePublished string                `json:"datePublished"`
	License       []string              `json:"license"`
	URL           string                `json:"url"`
	Creator       []CroissantCreator    `json:"creator"`
	CiteAs        string                `json:"citeAs"`
	Keywords      []string              `json:"keywords"`
	InLanguage    string                `json:"inLanguage"`
	IsLive        bool                  `json:"isLiveDataset"`
	Collection    string                `json:"rai:dataCollection"`
	Annotation    string                `json:"rai:dataAnnotationProtocol"`
	Biases        string                `json:"rai:dataBiases"`
	Limitations   string                `json:"rai:dataLimitations"`
	UseCases      string                `json:"rai:dataUseCases"`
	Personal      string                `json:"rai:personalSensitiveInformation"`
	Distribution  []CroissantFileObject `json:"distribution"`
	RecordSet     []CroissantRecord     `json:"recordSet"`
}

// CroissantCreator is a schema.org Person or Organization.
type CroissantCreator struct {
	Type        string                `json:"@type"`
	Name        string                `json:"name"`
	URL         string                `json:"url,omitempty"`
	Affiliation *CroissantAffiliation `json:"affiliation,omitempty"`
}

// CroissantAffiliation is a creator's organisation.
type CroissantAffiliation struct {
	Type string `json:"@type"`
	Name string `json:"name"`
}

// CroissantFileObject is a cr:FileObject.
type CroissantFileObject struct {
	Type           string `json:"@type"`
	ID             string `json:"@id"`
	Name           string `json:"name"`
	ContentURL     string `json:"contentUrl"`
	EncodingFormat string `json:"encodingFormat"`
	ContentSize    string `json:"contentSize"`
	SHA256         string `json:"sha256"`
}

// CroissantRecord is a cr:RecordSet: one table.
type CroissantRecord struct {
	Type        string           `json:"@type"`
	ID          string           `json:"@id"`
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Key         []CroissantRef   `json:"key"`
	Field       []CroissantField `json:"field"`
}

// CroissantRef points at a node by its @id.
type CroissantRef struct {
	ID string `json:"@id"`
}

// CroissantField is a cr:Field: one column.
type CroissantField struct {
	Type        string          `json:"@type"`
	ID          string          `json:"@id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	DataType    string          `json:"dataType"`
	Repeated    bool            `json:"repeated,omitempty"`
	Source      CroissantSource `json:"source"`
}

// CroissantSource says where a field's values come from.
type CroissantSource struct {
	FileObject CroissantRef     `json:"fileObject"`
	Extract    CroissantExtract `json:"extract"`
}

// CroissantExtract names the column.
type CroissantExtract struct {
	Column string `json:"column"`
}

// EncodingFormat is the media type of a release file.
func EncodingFormat(p string) string {
	switch path.Ext(p) {
	case ".parquet":
		return "application/x-parquet"
	case ".jsonl":
		return "application/jsonlines"
	case ".tsv":
		return "text/tab-separated-values"
	case ".md":
		return "text/markdown"
	case ".json":
		return "application/json"
	}
	return "text/plain"
}

// fileID is a file's @id in the metadata: its path.
func fileID(p string) string { return p }

// DataType is the Croissant type of a Parquet column (the element's for a
// list), and whether it repeats.
func DataType(n parquet.Node) (string, bool) {
	t, repeated := featureType(n)
	switch t {
	case "bool":
		return "sc:Boolean", repeated
	case "int32", "int64":
		return "sc:Integer", repeated
	case "float32", "float64":
		return "sc:Float", repeated
	}
	return "sc:Text", repeated
}

// licenceURLs are every licence of the release's rows, as Croissant's
// license takes them.
func (c *Contents) licenceURLs() []string {
	var out []string
	for _, l := range c.Licences() {
		out = append(out, LicenceURL(l))
	}
	return out
}

func (c *Contents) creators() []CroissantCreator {
	var out []CroissantCreator
	for _, cr := range c.Meta.Creators {
		o := CroissantCreator{Type: "sc:Person", Name: cr.Name, URL: cr.URL}
		if cr.Organization {
			o.Type = "sc:Organization"
		}
		if cr.Affiliation != "" {
			o.Affiliation = &CroissantAffiliation{Type: "sc:Organization", Name: cr.Affiliation}
		}
		out = append(out, o)
	}
	return out
}

func (c *Contents) croissantLimitations() string {
	s := "A reranking benchmark: documents relevant by neither selection signal are absent."
	switch n := c.noTraining(); {
	case n > 0:
		s += fmt.Sprintf(" %d of its %d texts come from sources whose terms forbid training on them: those rows, and the summaries and topics derived from them, carry no_training = true; use them for evaluation only.", n, len(c.texts()))
	case c.Meta.ExcludeNoTraining:
		s += " Documents whose sources forbid training were left out, with everything derived from them."
	default:
		s += " No text comes from a source that forbids training on it."
	}
	return s
}

// croissant renders croissant.json over the files built so far.
func (c *Contents) croissant(files []File) ([]byte, error) {
	doc := Croissant{
		Context: json.RawMessage(croissantContext), Type: "sc:Dataset", Name: c.Meta.Name,
		Description: fmt.Sprintf("%s: a reranking benchmark for mathematical information retrieval, %d queries with %d rated candidates. Its rows carry %d licences (%s): our labels, annotations and model paraphrases are under %s; problem and solution texts, and extractive summaries of them, stay under their sources' terms, named per row (LICENSES.md).",
			c.Meta.Name, len(c.Queries), len(c.Qrels), len(c.Licences()), strings.Join(c.Licences(), "; "), c.Meta.License),
		ConformsTo: CroissantConformsTo, Version: c.Meta.Version, DatePublished: c.Meta.Date,
		License: c.licenceURLs(), URL: c.Meta.Homepage, Creator: c.creators(), CiteAs: strings.TrimSpace(c.Meta.Citation),
		Keywords: []string{"mathematics", "information retrieval", "reranking", "benchmark"}, InLanguage: "en",
		Collection:  fmt.Sprintf("Problems with worked solutions from %s, near-duplicates removed; queries and candidates drawn by topic and summary similarity.", strings.Join(c.origins(), ", ")),
		Annotation:  "Each query's candidates were compared pairwise by a judge (LLM with prompt F.3, or an offline judge where the card says so) in a Swiss tournament; ratings are Bradley–Terry strengths rescaled to [0, 5] per query.",
		Biases:      "The judge's preferences, not human annotators', define relevance; candidates come only from documents similar by topic or summary.",
		Limitations: c.croissantLimitations(),
		UseCases:    "Evaluating rerankers and retrievers of mathematical problems (nDCG@10, exponential gain); not for training on rows with no_training = true.",
		Personal:    "None: competition-style mathematics problems and solutions.",
	}
	for _, f := range files {
		doc.Distribution = append(doc.Distribution, CroissantFileObject{
			Type: "cr:FileObject", ID: fileID(f.Path), Name: f.Path, ContentURL: f.Path,
			EncodingFormat: EncodingFormat(f.Path), ContentSize: fmt.Sprintf("%d B", len(f.Data)), SHA256: hexSHA(f.Data),
		})
	}
	for _, t := range Tables {
		rs := CroissantRecord{Type: "cr:RecordSet", ID: t.Config, Name: t.Config, Description: t.Doc}
		for _, k := range t.Key {
			rs.Key = append(rs.Key, CroissantRef{ID: t.Config + "/" + k})
		}
		for _, f := range t.Schema.Fields() {
			dt, rep := DataType(f)
			rs.Field = append(rs.Field, CroissantField{
				Type: "cr:Field", ID: t.Config + "/" + f.Name(), Name: f.Name(), Description: t.Docs[f.Name()],
				DataType: dt, Repeated: rep,
				Source: CroissantSource{FileObject: CroissantRef{ID: fileID(t.Path)}, Extract: CroissantExtract{Column: f.Name()}},
			})
		}
		doc.RecordSet = append(doc.RecordSet, rs)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
