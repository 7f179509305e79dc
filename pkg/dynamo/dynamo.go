// Package dynamo writes items to Amazon DynamoDB, or a server that speaks its
// API, with BatchWriteItem (AWS SDK for Go v2). It takes items as DynamoDB
// JSON, so it knows nothing of records.
package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/convo-cli/convo/pkg/retry"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// BatchSize is the most items one BatchWriteItem request takes.
const BatchSize = 25

// API is the part of the DynamoDB client a Writer uses.
type API interface {
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
}

// NewClient returns a client configured the usual AWS way: region and
// credentials from the environment and the shared config files, the
// endpoint from AWS_ENDPOINT_URL_DYNAMODB or AWS_ENDPOINT_URL. A non-empty
// endpoint replaces it, for DynamoDB Local, dynalite and the like.
func NewClient(ctx context.Context, endpoint string) (*dynamodb.Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("aws config: %w", err)
	}
	if cfg.Region == "" {
		return nil, errors.New("aws config: no region: set AWS_REGION or a region in ~/.aws/config")
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	}), nil
}

// Writer puts items into one table, BatchSize at a time.
type Writer struct {
	api   API
	table string
	queue []types.WriteRequest
	// Written counts the items the server accepted.
	Written int
	// Attempts bounds the requests for one batch while the server leaves
	// items unprocessed; Backoff is the first wait between them, doubled
	// each time up to MaxBackoff.
	Attempts            int
	Backoff, MaxBackoff time.Duration
}

// NewWriter returns a Writer putting items into table through api.
func NewWriter(api API, table string) *Writer {
	return &Writer{api: api, table: table, Attempts: 10, Backoff: 50 * time.Millisecond, MaxBackoff: 5 * time.Second}
}

// Put queues one item, given as a DynamoDB JSON attribute map
// ({"id":{"S":"..."},...}), and sends the queue once it holds BatchSize.
func (w *Writer) Put(ctx context.Context, item []byte) error {
	var m map[string]attr
	if err := json.Unmarshal(item, &m); err != nil {
		return fmt.Errorf("dynamodb item: %w", err)
	}
	av := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		a, err := v.value()
		if err != nil {
			return fmt.Errorf("dynamodb item attribute %s: %w", k, err)
		}
		av[k] = a
	}
	w.queue = append(w.queue, types.WriteRequest{PutRequest: &types.PutRequest{Item: av}})
	if len(w.queue) < BatchSize {
		return nil
	}
	return w.Flush(ctx)
}

// Flush sends the queued items. Items the server leaves unprocessed (it
// does under throttling) are sent again after a backoff; Flush fails when
// some remain after Attempts requests.
func (w *Writer) Flush(ctx context.Context) error {
	pending := w.queue
	if len(pending) > 0 {
		p := retry.Policy{Attempts: w.Attempts, Wait: retry.Exponential(w.Backoff, w.MaxBackoff)}
		err := p.Do(ctx, isUnprocessed, nil, func(attempt int) error {
			out, err := w.api.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
				RequestItems: map[string][]types.WriteRequest{w.table: pending},
			})
			if err != nil {
				return fmt.Errorf("write to dynamodb table %s: %w", w.table, err)
			}
			left := out.UnprocessedItems[w.table]
			w.Written += len(pending) - len(left)
			pending = left
			if len(pending) > 0 {
				return &unprocessedError{w.table, len(pending), attempt}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	w.queue = w.queue[:0]
	return nil
}

// unprocessedError is a batch the server left partly unprocessed: sent
// again until the Writer's Attempts run out.
type unprocessedError struct {
	table           string
	items, attempts int
}

func (e *unprocessedError) Error() string {
	return fmt.Sprintf("write to dynamodb table %s: %d items still unprocessed after %d attempts", e.table, e.items, e.attempts)
}

func isUnprocessed(err error) bool {
	_, ok := err.(*unprocessedError)
	return ok
}

// attr is one attribute value in DynamoDB JSON. Pointers tell an absent
// type from an empty value ({"L":[]}, {"S":""}).
type attr struct {
	S    *string
	N    *string
	BOOL *bool
	NULL *bool
	L    *[]attr
	M    *map[string]attr
}

func (a attr) value() (types.AttributeValue, error) {
	switch {
	case a.S != nil:
		return &types.AttributeValueMemberS{Value: *a.S}, nil
	case a.N != nil:
		return &types.AttributeValueMemberN{Value: *a.N}, nil
	case a.BOOL != nil:
		return &types.AttributeValueMemberBOOL{Value: *a.BOOL}, nil
	case a.NULL != nil:
		return &types.AttributeValueMemberNULL{Value: *a.NULL}, nil
	case a.L != nil:
		l := make([]types.AttributeValue, len(*a.L))
		for i, e := range *a.L {
			v, err := e.value()
			if err != nil {
				return nil, err
			}
			l[i] = v
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case a.M != nil:
		m := make(map[string]types.AttributeValue, len(*a.M))
		for k, e := range *a.M {
			v, err := e.value()
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	}
	return nil, errors.New("attribute value of no known type (want S, N, BOOL, NULL, L or M)")
}
